import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type InterviewSessionStatus = 'in_progress' | 'completed';

/**
 * The host's own domain entity. The module never writes it: it only reads it for
 * `GET /v1/sessions` through the `resources` option, scoped to the key's account and mode.
 */
@Entity({ name: 'demo_interview_sessions' })
@Index(['accountId', 'livemode', 'createdAt', 'id'])
// Lists one status in page order, so that GET /v1/sessions?status=... reads it through an index.
@Index(['accountId', 'livemode', 'status', 'createdAt', 'id'])
export class InterviewSession {
  /** `ses_` and 24 random hex characters: ids are the host's business, the module only reads them. */
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'varchar', length: 32 })
  status!: InterviewSessionStatus;

  @Column({ name: 'candidate_name', type: 'varchar', length: 255 })
  candidateName!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'completed_at', type: Date, nullable: true })
  completedAt!: Date | null;
}
