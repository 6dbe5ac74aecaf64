import type { DataSource, QueryRunner } from 'typeorm';

/**
 * PostgreSQL: refuses, with the fix, a DataSource `schema` that is not its connections' current one,
 * since the module's statements find tables through the search_path and TypeORM's name the schema.
 * Each migration runs it first, on its own `queryRunner`.
 */
export async function checkSchema(dataSource: DataSource, queryRunner?: QueryRunner): Promise<void> {
  const options = dataSource.options;
  if (options.type !== 'postgres' || !options.schema) return;
  const [{ schema }] = (await dataSource.query('SELECT current_schema() AS schema', [], queryRunner)) as {
    schema: string | null;
  }[];
  if (schema === options.schema) return;
  throw new Error(
    `nest-interview-api: the DataSource's schema "${options.schema}" is not its connections' current schema ` +
      `(${schema === null ? 'none' : `"${schema}"`}): put it first on their search_path, ` +
      `e.g. extra: { options: '-c search_path=${options.schema}' }.`,
  );
}
