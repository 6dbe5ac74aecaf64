import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint's latest failed attempt, so that a failing streak with a long pause in it starts
 * afresh instead of disabling the endpoint at its next single failure.
 */
export class InterviewApiFailingStreakPausePostgres1764100000000 implements MigrationInterface {
  name = 'InterviewApiFailingStreakPausePostgres1764100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_endpoints" ADD "last_failed_at" TIMESTAMP');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_endpoints" DROP COLUMN "last_failed_at"');
  }
}
