import type { DataSource, EntityManager } from 'typeorm';
import { retryOnDeadlock } from './deadlock-retry.js';

/** Per SQLite DataSource: the end of the last transaction the module began on it. */
const lastOnSqlite = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` in a transaction on `manager`. TypeORM gives SQLite one connection and one query
 * runner for all callers: two transactions begun at once both send BEGIN on it and the second
 * fails ("cannot start a transaction within a transaction"), so on SQLite the module's own
 * transactions run one after another. Inside a transaction already open on the manager this is a
 * savepoint, as TypeORM makes it, and waits for nothing; PostgreSQL's pool gives every transaction
 * a connection of its own, and a transaction it aborts to break a deadlock is run again.
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
