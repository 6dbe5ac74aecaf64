import { Exclude, Expose } from 'class-transformer';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ResourceDefinition } from '../../lib/index.js';

/**
 * A host entity private but for the properties it `@Expose()`s under a class-level `@Exclude()`,
 * exposed under /v1/candidates: API keys read those only.
 */
@Exclude()
@Entity({ name: 'host_candidates' })
@Index(['accountId', 'livemode', 'createdAt', 'id'])
export class CandidateEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Expose()
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Expose()
  @Column({ type: 'varchar', length: 32 })
  stage!: string;

  @Column({ type: 'varchar', length: 255 })
  email!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}

export const CANDIDATES: ResourceDefinition<CandidateEntity> = {
  path: 'candidates',
  entity: CandidateEntity,
  object: 'candidate',
  scope: 'results:read',
};
