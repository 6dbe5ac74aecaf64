import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';

/**
 * The pending deliveries' schedule, one row per pending delivery with its `next_attempt_at`, read by
 * the sweeper and the drop of an endpoint's retries. A table rather than an index on the deliveries,
 * so that a claim and a record rewrite a delivery in place (no indexed column changes).
 */
@Entity({ name: 'interview_pending_deliveries' })
@Index('idx_interview_pending_deliveries_due', ['nextAttemptAt'])
@Index('idx_interview_pending_deliveries_endpoint', ['endpointId'])
export class PendingDeliveryEntity extends InstantColumnsEntity {
  @PrimaryColumn({ name: 'delivery_id', type: 'varchar', length: 40 })
  deliveryId!: string;

  @Column({ name: 'next_attempt_at', type: Date })
  nextAttemptAt!: Date;

  /** The delivery's endpoint: dropping an endpoint's retries reads its rows only. */
  @Column({ name: 'endpoint_id', type: 'varchar', length: 40 })
  endpointId!: string;
}
