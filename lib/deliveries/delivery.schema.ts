import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { DeliveryErrorCode, DeliveryStatus } from '../delivery-store/delivery.entity.js';
import type { AttemptErrorCode } from '../http/index.js';
import type { AttemptView, DeliveryView } from './delivery.view.js';

// A delivery as the API returns it, as OpenAPI schemas (docs/api-contract.md, Webhook delivery).

export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const ATTEMPT_ERRORS: AttemptErrorCode[] = [
  'timeout',
  'connection_error',
  'tls_error',
  'dns_error',
  'blocked_destination',
  'http_error',
];
const DELIVERY_ERRORS: DeliveryErrorCode[] = [...ATTEMPT_ERRORS, 'endpoint_disabled', 'endpoint_deleted'];

@ApiSchema({ name: 'WebhookDeliveryAttempt', description: 'One attempt of a delivery.' })
export class AttemptSchema implements AttemptView {
  @ApiProperty({ type: 'integer', minimum: 1 })
  attempt!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The receiver’s status, when it answered.' })
  response_status!: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The first 2,000 characters of the reply.' })
  response_body!: string | null;

  @ApiProperty({ type: 'string', enum: ATTEMPT_ERRORS, nullable: true })
  error!: AttemptErrorCode | null;

  @ApiProperty({ type: 'integer', minimum: 0 })
  duration_ms!: number;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at!: string;
}

@ApiSchema({ name: 'WebhookDelivery', description: 'One event sent to one endpoint, as lists show it.' })
export class DeliverySchema implements Omit<DeliveryView, 'attempts'> {
  @ApiProperty({ type: 'string', example: 'dlv_01kaqz3t4v8m2c7d5e9f0g1h2j' })
  id!: string;

  @ApiProperty({ type: 'string', enum: ['webhook_delivery'] })
  object!: 'webhook_delivery';

  @ApiProperty({ type: 'string' })
  endpoint_id!: string;

  @ApiProperty({ type: 'string', description: 'The event sent, also the `webhook-id` of its requests.' })
  event_id!: string;

  @ApiProperty({ type: 'string' })
  event_type!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Attempts made so far.' })
  attempt!: number;

  @ApiProperty({ type: 'string', enum: DELIVERY_STATUSES })
  status!: DeliveryStatus;

  @ApiProperty({ type: 'integer', nullable: true })
  response_status!: number | null;

  @ApiProperty({ type: 'string', nullable: true })
  response_body!: string | null;

  @ApiProperty({ type: 'string', enum: DELIVERY_ERRORS, nullable: true })
  error!: DeliveryErrorCode | null;

  @ApiProperty({ type: 'integer', nullable: true })
  duration_ms!: number | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'While pending.' })
  next_attempt_at!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The delivery this one replays.' })
  replay_of!: string | null;

  @ApiProperty({ type: 'boolean' })
  livemode!: boolean;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at!: string;
}

@ApiSchema({
  name: 'WebhookDeliveryWithAttempts',
  description: 'A delivery as retrieved alone: with every attempt made, oldest first.',
})
export class DeliveryWithAttemptsSchema extends DeliverySchema {
  @ApiProperty({ type: () => [AttemptSchema] })
  attempts!: AttemptSchema[];
}
