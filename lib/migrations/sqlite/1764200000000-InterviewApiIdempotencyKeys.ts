import type { MigrationInterface, QueryRunner } from 'typeorm';

/** POSTs made with an Idempotency-Key (see the PostgreSQL migration of the same name). */
export class InterviewApiIdempotencyKeysSqlite1764200000000 implements MigrationInterface {
  name = 'InterviewApiIdempotencyKeysSqlite1764200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_idempotency_keys" ("account_id" varchar(255) NOT NULL, "livemode" boolean NOT NULL, "idempotency_key" varchar(255) NOT NULL, "fingerprint" varchar(64) NOT NULL, "token" varchar(32) NOT NULL, "response_status" integer, "response_body" text, "created_at" datetime NOT NULL, PRIMARY KEY ("account_id", "livemode", "idempotency_key"))',
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
