import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A claim's stamp apart from its lease: the lease (`locked_until`) is renewed while a worker holds
 * the delivery, and the stamp (`claimed_at`) tells that claim from any later one when its outcome
 * is recorded. Not indexed, so a claim and its renewals stay HOT updates.
 */
export class InterviewApiClaimRenewalPostgres1764000000000 implements MigrationInterface {
  name = 'InterviewApiClaimRenewalPostgres1764000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_deliveries" ADD "claimed_at" TIMESTAMP');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_deliveries" DROP COLUMN "claimed_at"');
  }
}
