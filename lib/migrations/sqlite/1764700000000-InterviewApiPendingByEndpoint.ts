import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The schedule knows each pending delivery's endpoint (see the PostgreSQL migration of the same
 * name). SQLite adds no NOT NULL column without a default: the table is made again.
 */
export class InterviewApiPendingByEndpointSqlite1764700000000 implements MigrationInterface {
  name = 'InterviewApiPendingByEndpointSqlite1764700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_pending_deliveries_new" ("delivery_id" varchar(40) PRIMARY KEY NOT NULL, "next_attempt_at" datetime NOT NULL, "endpoint_id" varchar(40) NOT NULL)',
    );
    await queryRunner.query(
      `INSERT INTO "interview_pending_deliveries_new" ("delivery_id", "next_attempt_at", "endpoint_id")
       SELECT p."delivery_id", p."next_attempt_at", d."endpoint_id"
       FROM "interview_pending_deliveries" p JOIN "interview_webhook_deliveries" d ON d."id" = p."delivery_id"`,
    );
    await queryRunner.query('DROP TABLE "interview_pending_deliveries"');
    await queryRunner.query(
      'ALTER TABLE "interview_pending_deliveries_new" RENAME TO "interview_pending_deliveries"',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_pending_deliveries_due" ON "interview_pending_deliveries" ("next_attempt_at")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_pending_deliveries_endpoint" ON "interview_pending_deliveries" ("endpoint_id")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_pending_deliveries_old" ("delivery_id" varchar(40) PRIMARY KEY NOT NULL, "next_attempt_at" datetime NOT NULL)',
    );
    await queryRunner.query(
      'INSERT INTO "interview_pending_deliveries_old" ("delivery_id", "next_attempt_at") SELECT "delivery_id", "next_attempt_at" FROM "interview_pending_deliveries"',
    );
    await queryRunner.query('DROP TABLE "interview_pending_deliveries"');
    await queryRunner.query(
      'ALTER TABLE "interview_pending_deliveries_old" RENAME TO "interview_pending_deliveries"',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_pending_deliveries_due" ON "interview_pending_deliveries" ("next_attempt_at")',
    );
  }
}
