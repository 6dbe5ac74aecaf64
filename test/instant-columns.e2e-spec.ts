import { DataSource, type DataSourceOptions } from 'typeorm';
import { INTERVIEW_API_ENTITIES } from '../lib/index.js';
import { TestDatabase } from './support/database.js';

/** The module's columns the database holds a time in, as `table.column type`. */
async function timeColumns(dataSource: DataSource): Promise<string[]> {
  const found: string[] = [];
  for (const { tableName } of dataSource.entityMetadatas) {
    const columns: { name: string; type: string }[] =
      dataSource.options.type === 'postgres'
        ? await dataSource.query(
            `SELECT column_name AS name, data_type AS type FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = $1`,
            [tableName],
          )
        : await dataSource.query('SELECT name, type FROM pragma_table_info(?)', [tableName]);
    for (const { name, type } of columns) {
      if (/^(timestamp|datetime)/.test(type)) found.push(`${tableName}.${name} ${type}`);
    }
  }
  return found.sort();
}

describe("the module's timestamp columns", () => {
  const databases: TestDatabase[] = [];
  const dataSources: DataSource[] = [];

  afterEach(async () => {
    for (const dataSource of dataSources.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
    for (const db of databases.splice(0)) await db.drop();
  });

  /** A DataSource over the module's entities, synchronized, on a database of its own. */
  async function open(kind: 'postgres' | 'sqlite'): Promise<DataSource> {
    const db = await TestDatabase.create(kind);
    databases.push(db);
    const dataSource = new DataSource({
      ...db.options(),
      entities: INTERVIEW_API_ENTITIES,
    } as DataSourceOptions);
    dataSources.push(dataSource);
    return dataSource.initialize();
  }

  it('are timestamptz on a PostgreSQL DataSource and datetime on a SQLite one, both open in one process', async () => {
    const postgres = await open('postgres');
    const sqlite = await open('sqlite');
    const onPostgres = await timeColumns(postgres);
    expect(onPostgres).toHaveLength(16);
    for (const column of onPostgres) expect(column).toMatch(/ timestamp with time zone$/);
    expect(await timeColumns(sqlite)).toEqual(
      onPostgres.map((column) => column.replace(/ timestamp with time zone$/, ' datetime')),
    );
  });
});
