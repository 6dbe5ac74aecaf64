import type { ClaimedDelivery, DeliveryOutcome } from '../../lib/deliveries/claimed-delivery.js';

/**
 * The outcome of one attempt a worker made on `delivery`, as the engine records it: a 200 that
 * ends it, or, given `retryAt`, a 500 whose retry is due then.
 */
export function attemptOutcome(delivery: ClaimedDelivery, retryAt: Date | null = null): DeliveryOutcome {
  const failed = retryAt !== null;
  return {
    delivery,
    attempted: true,
    status: failed ? 'pending' : 'succeeded',
    responseStatus: failed ? 500 : 200,
    responseBody: failed ? 'down' : 'ok',
    error: failed ? 'http_error' : null,
    durationMs: 3,
    nextAttemptAt: retryAt,
    goneUrl: null,
  };
}
