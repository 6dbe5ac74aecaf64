import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /v1/events?type=` reads an index of each account's events of one type, newest first, so that
 * a page of a rarely published type does not read every event of the account.
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
