import type { EntityManager } from 'typeorm';

/**
 * The rows a statement returns (`RETURNING ...`), on either database, on the manager's connection
 * when it has one (a transaction's): TypeORM's plain `query` answers an UPDATE's rows on
 * PostgreSQL as `[rows, count]`, and nothing row-like on SQLite.
 */
export async function returnedRows<T>(manager: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const own = manager.queryRunner;
  const runner = own ?? manager.connection.createQueryRunner();
  try {
    const result = await runner.query(sql, params, true);
    return (result.records ?? []) as T[];
  } finally {
    if (!own) await runner.release();
  }
}
