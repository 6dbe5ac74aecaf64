import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /v1/events?type=` reads an index of each account's events of one type, newest first: without
 * it, a type the account rarely publishes made the list read every event of the account, or of
 * the whole table, for one page.
 */
export class InterviewApiEventTypeIndexPostgres1764500000000 implements MigrationInterface {
  name = 'InterviewApiEventTypeIndexPostgres1764500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_type" ON "interview_events" ("account_id", "livemode", "type", "created_at", "id")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_events_type"');
  }
}
