import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The module's timestamp columns, by table. */
const TIMESTAMP_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  interview_api_keys: ['created_at', 'last_used_at', 'revoked_at'],
  interview_events: ['created_at'],
  interview_webhook_endpoints: ['failing_since', 'last_failed_at', 'created_at', 'updated_at'],
  interview_webhook_deliveries: ['next_attempt_at', 'locked_until', 'claimed_at', 'created_at', 'updated_at'],
  interview_pending_deliveries: ['next_attempt_at'],
  interview_webhook_attempts: ['created_at'],
  interview_idempotency_keys: ['created_at'],
};

/** One ALTER TABLE per table, so that each is rewritten once; PostgreSQL rebuilds its indexes. */
function retype(table: string, columns: readonly string[], type: 'timestamptz' | 'timestamp'): string {
  const changes = columns.map(
    (column) => `ALTER COLUMN "${column}" TYPE ${type} USING "${column}" AT TIME ZONE 'UTC'`,
  );
  return `ALTER TABLE "${table}" ${changes.join(', ')}`;
}

/**
 * Timestamps become instants (`timestamptz`): a `timestamp` holds the wall-clock time of the
 * process that wrote it, so processes in different time zones misfiltered and misordered each
 * other's rows. The rows stored so far are read as UTC, the zone the module asked processes to run
 * in, and undoing it writes them back as UTC, whatever the session's TimeZone.
 */
export class InterviewApiInstantsPostgres1764900000000 implements MigrationInterface {
  name = 'InterviewApiInstantsPostgres1764900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, columns] of Object.entries(TIMESTAMP_COLUMNS)) {
      await queryRunner.query(retype(table, columns, 'timestamptz'));
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, columns] of Object.entries(TIMESTAMP_COLUMNS)) {
      await queryRunner.query(retype(table, columns, 'timestamp'));
    }
  }
}
