import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The installation's one row (see the PostgreSQL migration of the same name). */
export class InterviewApiInstallationSqlite1764800000000 implements MigrationInterface {
  name = 'InterviewApiInstallationSqlite1764800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "interview_installation" ("singleton" integer PRIMARY KEY NOT NULL, "id" varchar(40) NOT NULL)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "interview_installation"');
  }
}
