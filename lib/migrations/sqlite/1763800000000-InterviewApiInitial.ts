import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Creates the interview API tables on SQLite as TypeORM's schema builder writes the entities;
 * test/migrations.e2e-spec.ts checks that the migrated schema matches them (no drift).
 */
export class InterviewApiInitialSqlite1763800000000 implements MigrationInterface {
  name = 'InterviewApiInitialSqlite1763800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_api_keys" ("id" varchar(40) PRIMARY KEY NOT NULL, "account_id" varchar(255) NOT NULL, "name" varchar(255) NOT NULL, "livemode" boolean NOT NULL, "scopes" text NOT NULL, "key_hash" varchar(64) NOT NULL, "last4" varchar(4) NOT NULL, "created_at" datetime NOT NULL, "last_used_at" datetime, "revoked_at" datetime)',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_interview_api_keys_hash" ON "interview_api_keys" ("key_hash")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_api_keys_list" ON "interview_api_keys" ("account_id", "livemode", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_webhook_endpoints" ("id" varchar(40) PRIMARY KEY NOT NULL, "account_id" varchar(255) NOT NULL, "livemode" boolean NOT NULL, "url" varchar(2048) NOT NULL, "description" varchar(1024), "enabled_events" text NOT NULL, "status" varchar(16) NOT NULL, "disabled_reason" varchar(64), "secret" varchar(128) NOT NULL, "failing_since" datetime, "created_at" datetime NOT NULL, "updated_at" datetime NOT NULL)',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_webhook_endpoints_fanout" ON "interview_webhook_endpoints" ("account_id", "livemode", "status")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_webhook_endpoints_list" ON "interview_webhook_endpoints" ("account_id", "livemode", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_events" ("id" varchar(40) PRIMARY KEY NOT NULL, "account_id" varchar(255) NOT NULL, "livemode" boolean NOT NULL, "type" varchar(128) NOT NULL, "payload" text NOT NULL, "created_at" datetime NOT NULL)',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_created" ON "interview_events" ("created_at")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_interview_events_list" ON "interview_events" ("account_id", "livemode", "created_at", "id")',
    );
    await queryRunner.query(
      'CREATE TABLE "interview_webhook_deliveries" ("id" varchar(40) PRIMARY KEY NOT NULL, "account_id" varchar(255) NOT NULL, "livemode" boolean NOT NULL, "endpoint_id" varchar(40) NOT NULL, "event_id" varchar(40) NOT NULL, "event_type" varchar(128) NOT NULL, "status" varchar(16) NOT NULL, "attempt" integer NOT NULL, "response_status" integer, "response_body" text, "error" varchar(32), "duration_ms" integer, "next_attempt_at" datetime, "locked_until" datetime, "replay_of" varchar(40), "created_at" datetime NOT NULL, "updated_at" datetime NOT NULL)',
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
      'CREATE TABLE "interview_webhook_attempts" ("id" varchar(40) PRIMARY KEY NOT NULL, "delivery_id" varchar(40) NOT NULL, "attempt" integer NOT NULL, "response_status" integer, "response_body" text, "error" varchar(32), "duration_ms" integer NOT NULL, "created_at" datetime NOT NULL)',
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
