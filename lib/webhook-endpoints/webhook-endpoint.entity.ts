import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumnsEntity } from '../database/instant-columns.js';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

@Entity({ name: 'interview_webhook_endpoints' })
@Index('idx_interview_webhook_endpoints_list', ['accountId', 'livemode', 'createdAt', 'id'])
@Index('idx_interview_webhook_endpoints_fanout', ['accountId', 'livemode', 'status'])
export class WebhookEndpointEntity extends InstantColumnsEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 255 })
  accountId!: string;

  @Column({ type: 'boolean' })
  livemode!: boolean;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  description!: string | null;

  @Column({ name: 'enabled_events', type: 'simple-json' })
  enabledEvents!: string[];

  @Column({ type: 'varchar', length: 16 })
  status!: WebhookEndpointStatus;

  /** Why a disabled endpoint is disabled: `disabled_by_request`, `failing_for_too_long` or `endpoint_gone`. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 64, nullable: true })
  disabledReason!: string | null;

  /**
   * The signing secret (`whsec_...`), as stored: `enc:v1:...` when `webhooks.secretEncryptionKeys` is
   * set. Kept usable for signing: it is not a password.
   */
  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  /** Start of the current run of failed attempts; cleared by any success. */
  @Column({ name: 'failing_since', type: Date, nullable: true })
  failingSince!: Date | null;

  /** The latest failed attempt: a failure long after it starts a new streak (see FailingStreakRule). */
  @Column({ name: 'last_failed_at', type: Date, nullable: true })
  lastFailedAt!: Date | null;

  /**
   * How many times its pending retries were dropped (a disable, a delete): a delivery claimed
   * before the count moved was dropped, even if the endpoint was enabled again before its send.
   */
  @Column({ name: 'retry_drops', type: 'integer', default: 0 })
  retryDrops!: number;

  @Column({ name: 'created_at' })
  createdAt!: Date;

  @Column({ name: 'updated_at' })
  updatedAt!: Date;
}
