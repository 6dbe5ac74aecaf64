import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The due index holds pending deliveries only, so a finished delivery leaves it. */
export class InterviewApiDeliveryHotPathSqlite1763900000000 implements MigrationInterface {
  name = 'InterviewApiDeliveryHotPathSqlite1763900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
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
  }
}
