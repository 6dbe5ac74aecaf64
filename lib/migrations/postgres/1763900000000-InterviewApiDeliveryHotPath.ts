import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Makes the delivery engine's writes lighter on PostgreSQL. A delivery row is rewritten twice soon
 * after it is inserted (the claim, then the outcome): with room left on its page, the claim, which
 * changes no indexed column, stays on that page and writes no index entry (a HOT update). And the
 * due index holds pending deliveries only, so a finished delivery leaves it instead of adding to it.
 */
export class InterviewApiDeliveryHotPathPostgres1763900000000 implements MigrationInterface {
  name = 'InterviewApiDeliveryHotPathPostgres1763900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_deliveries" SET (fillfactor = 50)');
    await queryRunner.query('DROP INDEX "idx_interview_deliveries_due"');
    await queryRunner.query(
      `CREATE INDEX "idx_interview_deliveries_due" ON "interview_webhook_deliveries" ("next_attempt_at") WHERE status = 'pending'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_deliveries_due"');
    await queryRunner.query(
      'CREATE INDEX "idx_interview_deliveries_due" ON "interview_webhook_deliveries" ("status", "next_attempt_at")',
    );
    await queryRunner.query('ALTER TABLE "interview_webhook_deliveries" RESET (fillfactor)');
  }
}
