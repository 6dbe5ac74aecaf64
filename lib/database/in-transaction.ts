import type { DataSource, EntityManager } from 'typeorm';
import { retryOnDeadlock } from './deadlock-retry.js';

/** Per SQLite DataSource: the end of the last transaction the module began on it. */
const lastOnSqlite = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` in a transaction on `manager`: a savepoint inside one already open; on PostgreSQL run
 * again if aborted by a deadlock; on SQLite one after another, since TypeORM's single connection
 * fails a second BEGIN sent while a transaction is open.
 */
export function inTransaction<T>(
  manager: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  const dataSource = manager.connection;
  // A savepoint cannot be run again alone: a deadlock aborts the whole enclosing transaction.
  if (manager.queryRunner?.isTransactionActive) return manager.transaction(work);
  if (dataSource.options.type === 'postgres') return retryOnDeadlock(() => manager.transaction(work));
  const previous = lastOnSqlite.get(dataSource) ?? Promise.resolve();
  const run = previous.then(() => manager.transaction(work));
  lastOnSqlite.set(
    dataSource,
    run.catch(() => undefined),
  );
  return run;
}
