import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Creates the interview API tables on PostgreSQL as TypeORM's schema builder writes the entities;
 * test/migrations.e2e-spec.ts checks that the migrated schema matches them (no drift).
 */
export class InterviewApiInitialPostgres1763800000000 implements MigrationInterface {
  name = 'InterviewApiInitialPostgres1763800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_api_keys" ("id" character varying(40) NOT NULL, "account_id" character varying(255) NOT NULL, "name" character varying(255) NOT NULL, "livemode" boolean NOT NULL, "scopes" text NOT NULL, "key_hash" character varying(64) NOT NULL, "last4" character varying(4) NOT NULL, "created_at" TIMESTAMP NOT NULL, "last_used_at" TIMESTAMP, "revoked_at" TIMESTAMP, CONSTRAINT "PK_88bef25365150b9ebd7bd53dc85" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_interview_api_keys_hash" ON "interview_api_keys" ("key_hash")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_api_keys_list" ON "interview_api_keys" ("account_id", "livemode", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_webhook_endpoints" ("id" character varying(40) NOT NULL, "account_id" character varying(255) NOT NULL, "livemode" boolean NOT NULL, "url" character varying(2048) NOT NULL, "description" character varying(1024), "enabled_events" text NOT NULL, "status" character varying(16) NOT NULL, "disabled_reason" character varying(64), "secret" character varying(128) NOT NULL, "failing_since" TIMESTAMP, "created_at" TIMESTAMP NOT NULL, "updated_at" TIMESTAMP NOT NULL, CONSTRAINT "PK_18f6ad193861d889331003b6a8e" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_webhook_endpoints_fanout" ON "interview_webhook_endpoints" ("account_id", "livemode", "status")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_webhook_endpoints_list" ON "interview_webhook_endpoints" ("account_id", "livemode", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_events" ("id" character varying(40) NOT NULL, "account_id" character varying(255) NOT NULL, "livemode" boolean NOT NULL, "type" character varying(128) NOT NULL, "payload" text NOT NULL, "created_at" TIMESTAMP NOT NULL, CONSTRAINT "PK_930641cff722c84acc42e443589" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_created" ON "interview_events" ("created_at")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_list" ON "interview_events" ("account_id", "livemode", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_webhook_deliveries" ("id" character varying(40) NOT NULL, "account_id" character varying(255) NOT NULL, "livemode" boolean NOT NULL, "endpoint_id" character varying(40) NOT NULL, "event_id" character varying(40) NOT NULL, "event_type" character varying(128) NOT NULL, "status" character varying(16) NOT NULL, "attempt" integer NOT NULL, "response_status" integer, "response_body" text, "error" character varying(32), "duration_ms" integer, "next_attempt_at" TIMESTAMP, "locked_until" TIMESTAMP, "replay_of" character varying(40), "created_at" TIMESTAMP NOT NULL, "updated_at" TIMESTAMP NOT NULL, CONSTRAINT "PK_261ce866f6849af1baf9e4a70c4" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_deliveries_event" ON "interview_webhook_deliveries" ("event_id")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_deliveries_due" ON "interview_webhook_deliveries" ("status", "next_attempt_at")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_deliveries_list" ON "interview_webhook_deliveries" ("account_id", "livemode", "endpoint_id", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_webhook_attempts" ("id" character varying(40) NOT NULL, "delivery_id" character varying(40) NOT NULL, "attempt" integer NOT NULL, "response_status" integer, "response_body" text, "error" character varying(32), "duration_ms" integer NOT NULL, "created_at" TIMESTAMP NOT NULL, CONSTRAINT "PK_49a3e5840fc37d261ebf8994221" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_attempts_delivery" ON "interview_webhook_attempts" ("delivery_id", "attempt")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_interview_attempts_delivery"');
    await queryRunner.query('DROP TABLE "interview_webhook_attempts"');
    await queryRunner.query('DROP INDEX "idx_interview_deliveries_list"');
    await queryRunner.query('DROP INDEX "idx_interview_deliveries_due"');
    await queryRunner.query('DROP INDEX "idx_interview_deliveries_event"');
    await queryRunner.query('DROP TABLE "interview_webhook_deliveries"');
    await queryRunner.query('DROP INDEX "idx_interview_events_list"');
    await queryRunner.query('DROP INDEX "idx_interview_events_created"');
    await queryRunner.query('DROP TABLE "interview_events"');
    await queryRunner.query('DROP INDEX "idx_interview_webhook_endpoints_list"');
    await queryRunner.query('DROP INDEX "idx_interview_webhook_endpoints_fanout"');
    await queryRunner.query('DROP TABLE "interview_webhook_endpoints"');
    await queryRunner.query('DROP INDEX "idx_interview_api_keys_list"');
    await queryRunner.query('DROP INDEX "uq_interview_api_keys_hash"');
    await queryRunner.query('DROP TABLE "interview_api_keys"');
  }
}
