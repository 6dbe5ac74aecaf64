import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many times an endpoint's pending retries were dropped (a disable, a delete). A worker reads
 * it with each claim: a delivery still waiting for its send when the count has moved was dropped
 * meanwhile, even if the endpoint has been enabled again since.
 */
export class InterviewApiRetryDropsPostgres1764600000000 implements MigrationInterface {
  name = 'InterviewApiRetryDropsPostgres1764600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "interview_webhook_endpoints" ADD COLUMN "retry_drops" integer NOT NULL DEFAULT 0',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_endpoints" DROP COLUMN "retry_drops"');
  }
}
