import type { MigrationInterface, QueryRunner } from 'typeorm';
import { checkSchema } from '../database/schema-check.js';

/**
 * `migration`, refusing to run up or down before it changes anything when the DataSource's `schema`
 * is not the connection's current one. Its statements name tables without a schema: they would
 * land on the search_path (`public`, say) while TypeORM recorded them as run in the schema's
 * migrations table, and once the host fixed its search_path no start would ever create them there.
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
