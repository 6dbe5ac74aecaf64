import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The schedule knows each pending delivery's endpoint, by an index: dropping one endpoint's
 * retries (a disable, a delete) reads that endpoint's rows, not every account's pending deliveries.
 */
export class InterviewApiPendingByEndpointPostgres1764700000000 implements MigrationInterface {
  name = 'InterviewApiPendingByEndpointPostgres1764700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "interview_pending_deliveries" ADD COLUMN "endpoint_id" character varying(40)',
    );
    await queryRunner.query(
      `UPDATE "interview_pending_deliveries" p SET "endpoint_id" = d."endpoint_id"
       FROM "interview_webhook_deliveries" d WHERE d."id" = p."delivery_id"`,
    );
    // A schedule row whose delivery is gone schedules nothing.
    await queryRunner.query('DELETE FROM "interview_pending_deliveries" WHERE "endpoint_id" IS NULL');
    await queryRunner.query(
      'ALTER TABLE "interview_pending_deliveries" ALTER COLUMN "endpoint_id" SET NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_pending_deliveries_endpoint" ON "interview_pending_deliveries" ("endpoint_id")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_pending_deliveries_endpoint"');
    await queryRunner.query('ALTER TABLE "interview_pending_deliveries" DROP COLUMN "endpoint_id"');
  }
}
