import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';
import type { Scope } from './scopes.js';

@Entity({ name: 'interview_api_keys' })
@Index('idx_interview_api_keys_list', ['accountId', 'livemode', 'createdAt', 'id'])
export class ApiKeyEntity extends InstantColumnsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'simple-array' })
  scopes!: Scope[];

  /** SHA-256 of the full key; the key itself is never stored. */
  @Index('uq_interview_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash!: string;

  @Column({ type: 'varchar', length: 4 })
  last4!: string;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', nullable: true, type: Date })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', nullable: true, type: Date })
  revokedAt!: Date | null;
}
