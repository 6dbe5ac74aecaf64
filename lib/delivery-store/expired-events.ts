import type { EntityManager } from 'typeorm';
import { inTransaction } from '../database/in-transaction.js';
import { SqlDialect } from '../database/sql-dialect.js';
import { purgeStatements } from './bound-statements.js';

/**
 * Deletes the events below `cutoff` (the lowest id still visible) with their deliveries, attempts
 * and schedule rows, in one transaction; answers how many events went.
 */
export function purgeExpiredEvents(manager: EntityManager, cutoff: string): Promise<number> {
  const { before, count, events } = purgeStatements(new SqlDialect(manager.connection), cutoff);
  return inTransaction(manager, async (tx) => {
    for (const statement of before) await tx.query(statement.sql, statement.params);
    const [{ count: expired }] = (await tx.query(count.sql, count.params)) as { count: number | string }[];
    await tx.query(events.sql, events.params);
    return Number(expired);
  });
}
