import type { MigrationInterface, QueryRunner } from 'typeorm';

/** POSTs made with an Idempotency-Key and their answers, kept for a day to answer retries alike. */
export class InterviewApiIdempotencyKeysPostgres1764200000000 implements MigrationInterface {
  name = 'InterviewApiIdempotencyKeysPostgres1764200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_idempotency_keys" ("account_id" character varying(255) NOT NULL, "livemode" boolean NOT NULL, "idempotency_key" character varying(255) NOT NULL, "fingerprint" character varying(64) NOT NULL, "token" character varying(32) NOT NULL, "response_status" integer, "response_body" text, "created_at" TIMESTAMP NOT NULL, CONSTRAINT "PK_cec4b4d086c525a21fa26384569" PRIMARY KEY ("account_id", "livemode", "idempotency_key"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_idempotency_keys_created" ON "interview_idempotency_keys" ("created_at")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_idempotency_keys_created"');
    await queryRunner.query('DROP TABLE "interview_idempotency_keys"');
  }
}
