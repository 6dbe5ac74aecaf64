import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An endpoint's latest failed attempt (see the PostgreSQL migration of the same name). */
export class InterviewApiFailingStreakPauseSqlite1764100000000 implements MigrationInterface {
  name = 'InterviewApiFailingStreakPauseSqlite1764100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_endpoints" ADD COLUMN "last_failed_at" datetime');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_endpoints" DROP COLUMN "last_failed_at"');
  }
}
