import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on each page (fillfactor), so that the claim and the outcome, which change no indexed column,
 * rewrite a delivery in place without index entries (HOT updates); and a due index of pending
 * deliveries only, which a finished delivery leaves.
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
