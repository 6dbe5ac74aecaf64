import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention finds expired events by their ids, which begin with the creation time: the index on
 * the creation time goes, one index entry less for every event published.
 */
export class InterviewApiEventRetentionByKeyPostgres1764400000000 implements MigrationInterface {
  name = 'InterviewApiEventRetentionByKeyPostgres1764400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_events_created"');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_created" ON "interview_events" ("created_at")',
    );
  }
}
