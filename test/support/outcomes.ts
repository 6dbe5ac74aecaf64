import type { ClaimedDelivery, DeliveryOutcome } from '../../lib/delivery-store/claimed-delivery.js';
import type { DeliveryEntity } from '../../lib/delivery-store/delivery.entity.js';

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

/**
 * After a worker's graceful shutdown: `sent` deliveries succeeded, and the other `givenBack` were
 * given back unsent, unclaimed and due at once, for another worker.
 */
export function expectSentAndGivenBack(stored: DeliveryEntity[], sent: number, givenBack: number): void {
  expect(stored.filter((delivery) => delivery.status === 'succeeded')).toHaveLength(sent);
  const pending = stored.filter((delivery) => delivery.status === 'pending');
  expect(pending).toHaveLength(givenBack);
  for (const delivery of pending) {
    expect(delivery).toMatchObject({ attempt: 0, lockedUntil: null });
    expect(delivery.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now());
  }
}
