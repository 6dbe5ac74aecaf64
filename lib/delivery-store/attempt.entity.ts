import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';
import type { AttemptErrorCode } from '../http/index.js';

/** The history of a delivery: one row per attempt made. */
@Entity({ name: 'interview_webhook_attempts' })
@Index('idx_interview_attempts_delivery', ['deliveryId', 'attempt'])
export class AttemptEntity extends InstantColumnsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'delivery_id', type: 'varchar', length: 40 })
  deliveryId!: string;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  error!: AttemptErrorCode | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
