import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';
import type { AttemptErrorCode } from '../http/index.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryErrorCode = AttemptErrorCode | 'endpoint_disabled' | 'endpoint_deleted';

/**
 * One event sent to one endpoint; the outbox row the worker claims, sends and records. No index
 * covers its state (see PendingDeliveryEntity), so that its updates stay in place.
 */
@Entity({ name: 'interview_webhook_deliveries' })
@Index('idx_interview_deliveries_list', ['accountId', 'livemode', 'endpointId', 'createdAt', 'id'])
@Index('idx_interview_deliveries_event', ['eventId'])
export class DeliveryEntity extends InstantColumnsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ name: 'endpoint_id', type: 'varchar', length: 40 })
  endpointId!: string;

  @Column({ name: 'event_id', type: 'varchar', length: 40 })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 128 })
  eventType!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  /** Attempts made so far. */
  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  error!: DeliveryErrorCode | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  /** When the next attempt is due, while pending. */
  @Column({ name: 'next_attempt_at', type: Date, nullable: true })
  nextAttemptAt!: Date | null;

  /** A worker's claim: until then no other worker may send this delivery. Renewed while held. */
  @Column({ name: 'locked_until', type: Date, nullable: true })
  lockedUntil!: Date | null;

  /** When the current claim was taken: it tells that claim from any later one. */
  @Column({ name: 'claimed_at', type: Date, nullable: true })
  claimedAt!: Date | null;

  @Column({ name: 'replay_of', type: 'varchar', length: 40, nullable: true })
  replayOf!: string | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
