import type { DataSource, QueryRunner } from 'typeorm';

/**
 * On PostgreSQL the module's own statements (the outbox, the claim, the record, its migrations)
 * name its tables without a schema, so they resolve through the connection's search_path, while
 * TypeORM's entity queries name the DataSource's `schema`. A DataSource whose `schema` is not its
 * connections' current schema would have the two look in different places (publishing failed with
 * "relation does not exist"): the start is refused, with the way out. The module's migrations
 * run before the start gets here: each checks it first, on its own `queryRunner`, so that none
 * creates tables on the search_path that TypeORM records as made in the schema.
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
