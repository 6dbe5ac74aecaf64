import type { MigrationInterface, QueryRunner } from 'typeorm';

/** How many times an endpoint's pending retries were dropped (see the PostgreSQL migration of the same name). */
export class InterviewApiRetryDropsSqlite1764600000000 implements MigrationInterface {
  name = 'InterviewApiRetryDropsSqlite1764600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "interview_webhook_endpoints" ADD COLUMN "retry_drops" integer NOT NULL DEFAULT (0)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_endpoints" DROP COLUMN "retry_drops"');
  }
}
