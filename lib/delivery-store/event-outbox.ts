import type { EntityManager } from 'typeorm';
import { inTransaction } from '../database/in-transaction.js';
import { queryPrepared } from '../database/prepared-statement.js';
import type { SqlDialect } from '../database/sql-dialect.js';
import { type OutboxEvent, publishStatements } from './bound-statements.js';

export type { OutboxEvent } from './bound-statements.js';

/**
 * Writes events and their scheduled pending deliveries atomically, fanned out to the subscribed
 * endpoints in SQL: one statement on PostgreSQL, three in a transaction on SQLite (a savepoint inside
 * one already open). Answers the delivery ids by event id.
 */
export async function writeToOutboxAtomically(
  manager: EntityManager,
  sql: SqlDialect,
  events: readonly OutboxEvent[],
): Promise<Map<string, string[]>> {
  const [first, ...rest] = publishStatements(sql, events);
  const created: { id: string; event_id: string }[] = sql.postgres
    ? await queryPrepared(manager, first.sql, first.params)
    : await inTransaction(manager, async (tx) => {
        await tx.query(first.sql, first.params);
        const [deliveries, schedule] = rest;
        const rows: { id: string; event_id: string }[] = await tx.query(deliveries.sql, deliveries.params);
        await tx.query(schedule.sql, schedule.params);
        return rows;
      });
  const byEvent = new Map<string, string[]>(events.map((event) => [event.id, []]));
  for (const row of created) byEvent.get(row.event_id)?.push(row.id);
  return byEvent;
}
