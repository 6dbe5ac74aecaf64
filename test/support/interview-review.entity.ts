import { Exclude } from 'class-transformer';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ResourceDefinition } from '../../lib/index.js';

/**
 * A host entity that keeps some columns private the NestJS way, with class-transformer's
 * `@Exclude()`, exposed under /v1/reviews: API keys must not read them.
 */
@Entity({ name: 'host_reviews' })
@Index(['accountId', 'livemode', 'createdAt', 'id'])
export class InterviewReviewEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'varchar', length: 32 })
  verdict!: string;

  @Exclude()
  @Column({ name: 'interviewer_notes', type: 'text' })
  interviewerNotes!: string;

  @Exclude({ toPlainOnly: true })
  @Column({ name: 'salary_band', type: 'varchar', length: 32 })
  salaryBand!: string;

  /** Left out of what the host reads from a request body only: the plain object keeps it. */
  @Exclude({ toClassOnly: true })
  @Column({ name: 'reviewer_name', type: 'varchar', length: 255 })
  reviewerName!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}

export const REVIEWS: ResourceDefinition<InterviewReviewEntity> = {
  path: 'reviews',
  entity: InterviewReviewEntity,
  object: 'review',
  scope: 'results:read',
};
