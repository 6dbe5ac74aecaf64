import type { DataSource } from 'typeorm';

/**
 * The rows a statement returns (`RETURNING ...`), on either database: TypeORM's plain `query`
 * answers an UPDATE's rows on PostgreSQL as `[rows, count]`, and nothing row-like on SQLite.
 */
export async function returnedRows<T>(dataSource: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  const runner = dataSource.createQueryRunner();
  try {
    const result = await runner.query(sql, params, true);
    return (result.records ?? []) as T[];
  } finally {
    await runner.release();
  }
}
