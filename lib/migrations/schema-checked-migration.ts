import type { MigrationInterface, QueryRunner } from 'typeorm';
import { checkSchema } from '../database/schema-check.js';

/**
 * `migration`, refusing to run up or down, before any change, when the DataSource's `schema` is not
 * the connection's current one: its unqualified tables would land on the search_path while TypeORM
 * recorded the migration as run in the schema, and no later start would create them there.
 */
export function schemaChecked(migration: new () => MigrationInterface): new () => MigrationInterface {
  class SchemaCheckedMigration extends migration {
    override async up(queryRunner: QueryRunner): Promise<void> {
      await checkSchema(queryRunner.connection, queryRunner);
      await super.up(queryRunner);
    }

    override async down(queryRunner: QueryRunner): Promise<void> {
      await checkSchema(queryRunner.connection, queryRunner);
      await super.down(queryRunner);
    }
  }
  // The class name is the one TypeORM falls back on for a migration without a `name`, and the one a
  // host listing POSTGRES_MIGRATIONS reads.
  Object.defineProperty(SchemaCheckedMigration, 'name', { value: migration.name });
  return SchemaCheckedMigration;
}
