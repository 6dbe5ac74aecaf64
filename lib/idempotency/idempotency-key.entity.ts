import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';

/**
 * A POST made with an `Idempotency-Key`, per account and mode: what it asked (a fingerprint of its
 * method, path, query and body) and, once it has run, what it answered (as sent), so that a retry
 * of it is answered the same instead of running again.
 */
@Entity({ name: 'interview_idempotency_keys' })
@Index('idx_interview_idempotency_keys_created', ['createdAt'])
export class IdempotencyKeyEntity extends InstantColumnsEntity {
  @PrimaryColumn({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @PrimaryColumn({ type: 'boolean' })
  livemode!: boolean;

  @PrimaryColumn({ name: 'idempotency_key', type: 'varchar', length: 255 })
  idempotencyKey!: string;

  /** SHA-256 (hex) of the request's method, path, query and body. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint!: string;

  /** Which run of the request holds the key: only that one may record its answer or let it go. */
  @Column({ type: 'varchar', length: 32 })
  token!: string;

  /** Null while the request runs. */
  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  /** The answer's bytes as sent, as JSON `{ "content_type", "body" }` (base64); null while it runs. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ name: 'created_at' })
  createdAt!: Date;
}
