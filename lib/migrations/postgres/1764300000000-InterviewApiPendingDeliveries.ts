import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The pending deliveries' schedule moves from an index on the deliveries to a table of its own, so
 * that claiming and recording a delivery update its row in place, touching none of its indexes.
 */
export class InterviewApiPendingDeliveriesPostgres1764300000000 implements MigrationInterface {
  name = 'InterviewApiPendingDeliveriesPostgres1764300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_pending_deliveries" ("delivery_id" character varying(40) NOT NULL, "next_attempt_at" TIMESTAMP NOT NULL, CONSTRAINT "PK_interview_pending_deliveries" PRIMARY KEY ("delivery_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_pending_deliveries_due" ON "interview_pending_deliveries" ("next_attempt_at")',
    );
    await queryRunner.query(
      `INSERT INTO "interview_pending_deliveries" ("delivery_id", "next_attempt_at") SELECT "id", COALESCE("next_attempt_at", "created_at") FROM "interview_webhook_deliveries" WHERE "status" = 'pending'`,
    );
    await queryRunner.query('DROP INDEX "idx_interview_deliveries_due"');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_interview_deliveries_due" ON "interview_webhook_deliveries" ("next_attempt_at") WHERE status = 'pending'`,
    );
    await queryRunner.query('DROP TABLE "interview_pending_deliveries"');
  }
}
