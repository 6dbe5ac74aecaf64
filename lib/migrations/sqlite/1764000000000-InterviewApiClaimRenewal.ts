import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A claim's stamp apart from its renewed lease (see the PostgreSQL migration of the same name). */
export class InterviewApiClaimRenewalSqlite1764000000000 implements MigrationInterface {
  name = 'InterviewApiClaimRenewalSqlite1764000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_deliveries" ADD COLUMN "claimed_at" datetime');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "interview_webhook_deliveries" DROP COLUMN "claimed_at"');
  }
}
