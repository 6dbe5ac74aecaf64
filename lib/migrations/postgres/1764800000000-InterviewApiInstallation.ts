import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The installation's one row, whose id names its delivery queue in Redis, so that hosts on different
 * databases sharing one Redis and queuePrefix never take each other's jobs. The first process to
 * start inserts the row.
 */
export class InterviewApiInstallationPostgres1764800000000 implements MigrationInterface {
  name = 'InterviewApiInstallationPostgres1764800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_installation" ("singleton" integer NOT NULL, "id" character varying(40) NOT NULL, CONSTRAINT "PK_4fa0d579091ec0150043be39f06" PRIMARY KEY ("singleton"))',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "interview_installation"');
  }
}
