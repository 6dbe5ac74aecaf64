import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The events of one type, newest first (see the PostgreSQL migration of the same name). */
export class InterviewApiEventTypeIndexSqlite1764500000000 implements MigrationInterface {
  name = 'InterviewApiEventTypeIndexSqlite1764500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_type" ON "interview_events" ("account_id", "livemode", "type", "created_at", "id")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_events_type"');
  }
}
