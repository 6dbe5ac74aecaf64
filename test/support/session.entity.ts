import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The test host's own domain entity, exposed under /v1/sessions through the `resources` option. */
@Entity({ name: 'host_sessions' })
@Index(['accountId', 'livemode', 'createdAt', 'id'])
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'varchar', length: 32 })
  status!: string;

  @Column({ name: 'candidate_name', type: 'varchar', length: 255 })
  candidateName!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
