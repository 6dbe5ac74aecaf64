import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The schedule of the pending deliveries, one row each while a delivery is pending, with its
 * `next_attempt_at`: what the sweeper and the drop of an endpoint's retries look through.
 *
 * It lives beside the deliveries rather than as an index on them. PostgreSQL rewrites a row in
 * place (a heap-only update, which touches no index) only when no indexed column changes; an index
 * on a delivery's state would make the two updates of every attempt (its claim and its outcome)
 * write new entries in every index of the deliveries table. A finished delivery only deletes its
 * row here.
 */
@Entity({ name: 'interview_pending_deliveries' })
@Index('idx_interview_pending_deliveries_due', ['nextAttemptAt'])
@Index('idx_interview_pending_deliveries_endpoint', ['endpointId'])
export class PendingDeliveryEntity {
  @PrimaryColumn({ name: 'delivery_id', type: 'varchar', length: 40 })
  deliveryId!: string;

  @Column({ name: 'next_attempt_at', type: Date })
  nextAttemptAt!: Date;

  /** The delivery's endpoint: dropping an endpoint's retries reads its rows only. */
  @Column({ name: 'endpoint_id', type: 'varchar', length: 40 })
  endpointId!: string;
}
