import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';

@Entity({ name: 'interview_events' })
@Index('idx_interview_events_list', ['accountId', 'livemode', 'createdAt', 'id'])
@Index('idx_interview_events_type', ['accountId', 'livemode', 'type', 'createdAt', 'id'])
export class EventEntity extends InstantColumnsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'varchar', length: 128 })
  type!: string;

  /** The event exactly as delivered: every attempt sends these same bytes. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
