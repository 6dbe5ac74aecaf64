import type { AttemptEntity } from '../delivery-store/attempt.entity.js';
import type { DeliveryEntity, DeliveryErrorCode, DeliveryStatus } from '../delivery-store/delivery.entity.js';

export interface AttemptView {
  attempt: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

/** A delivery as the API returns it (docs/api-contract.md, Webhook delivery). */
export interface DeliveryView {
  id: string;
  object: 'webhook_delivery';
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryStatus;
  response_status: number | null;
  response_body: string | null;
  error: DeliveryErrorCode | null;
  duration_ms: number | null;
  next_attempt_at: string | null;
  replay_of: string | null;
  livemode: boolean;
  created_at: string;
  updated_at: string;
  /** Only when one delivery is retrieved: every attempt made, oldest first. */
  attempts?: AttemptView[];
}

export function toDeliveryView(delivery: DeliveryEntity, attempts?: AttemptEntity[]): DeliveryView {
  const view: DeliveryView = {
    id: delivery.id,
    object: 'webhook_delivery',
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    attempt: delivery.attempt,
    status: delivery.status,
    response_status: delivery.responseStatus,
    response_body: delivery.responseBody,
    error: delivery.error,
    duration_ms: delivery.durationMs,
    next_attempt_at: delivery.nextAttemptAt ? delivery.nextAttemptAt.toISOString() : null,
    replay_of: delivery.replayOf,
    livemode: delivery.livemode,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
  };
  if (attempts) {
    view.attempts = attempts.map((attempt) => ({
      attempt: attempt.attempt,
      response_status: attempt.responseStatus,
      response_body: attempt.responseBody,
      error: attempt.error,
      duration_ms: attempt.durationMs,
      created_at: attempt.createdAt.toISOString(),
    }));
  }
  return view;
}
