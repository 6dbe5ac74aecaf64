import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Retention by event id (see the PostgreSQL migration of the same name). */
export class InterviewApiEventRetentionByKeySqlite1764400000000 implements MigrationInterface {
  name = 'InterviewApiEventRetentionByKeySqlite1764400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_events_created"');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_created" ON "interview_events" ("created_at")',
    );
  }
}
