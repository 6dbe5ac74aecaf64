import type { EntityManager } from 'typeorm';
import { SqlDialect } from '../deliveries/sql-dialect.js';
import { idTimePrefix } from '../identifiers/generate-id.js';

/** The event row to store. */
export interface OutboxEvent {
  id: string;
  accountId: string;
  livemode: boolean;
  type: string;
  payload: string;
  createdAt: Date;
}

/** Every enabled endpoint of the event's account and mode that subscribes to it, or one endpoint. */
export type OutboxTarget = { kind: 'subscribers' } | { kind: 'endpoint'; endpointId: string };

const DELIVERY_COLUMNS =
  'id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at';

/**
 * Writes an event and its pending deliveries. On PostgreSQL that is one statement (atomic by
 * itself, so no transaction round trips); on SQLite two, which the caller runs in a transaction.
 * The fan-out happens in the database: the endpoints are never loaded into the process.
 */
export async function writeToOutbox(
  manager: EntityManager,
  sql: SqlDialect,
  event: OutboxEvent,
  target: OutboxTarget,
): Promise<string[]> {
  const params: unknown[] = [
    event.id,
    event.accountId,
    event.livemode,
    event.type,
    event.payload,
    sql.time(event.createdAt),
    idTimePrefix('dlv', event.createdAt),
    target.kind === 'endpoint' ? target.endpointId : JSON.stringify(event.type),
  ];
  const p = (n: number): string => sql.param(n);
  const ts = (n: number): string => sql.timeParam(n);
  // The id's random part comes from the database; enabled_events is stored as JSON text, so a
  // subscription is `["*"]` or contains the quoted type (types are [a-z0-9_.] only).
  const randomPart = sql.postgres
    ? `substr(md5(random()::text || clock_timestamp()::text || e.id), 1, 16)`
    : `lower(hex(randomblob(8)))`;
  const matches =
    target.kind === 'endpoint'
      ? `e.id = ${p(8)}`
      : `e.status = 'enabled' AND (e.enabled_events = '["*"]' OR ${sql.postgres ? `strpos(e.enabled_events, ${p(8)}) > 0` : `instr(e.enabled_events, ${p(8)}) > 0`})`;
  const selectDeliveries = `SELECT ${p(7)} || ${randomPart}, e.account_id, e.livemode, e.id, ${p(1)}, ${p(4)}, 'pending', 0, ${ts(6)}, ${ts(6)}, ${ts(6)}
    FROM interview_webhook_endpoints e WHERE e.account_id = ${p(2)} AND e.livemode = ${p(3)} AND ${matches}`;
  const insertEvent = `INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${ts(6)})`;

  if (sql.postgres) {
    const rows: { id: string }[] = await manager.query(
      `WITH event AS (${insertEvent}) INSERT INTO interview_webhook_deliveries (${DELIVERY_COLUMNS}) ${selectDeliveries} RETURNING id`,
      params,
    );
    return rows.map((row) => row.id);
  }
  await manager.query(insertEvent, params.slice(0, 6));
  // SQLite binds `?` positionally: the SELECT's placeholders in order of appearance.
  const selectParams = [
    params[6],
    params[0],
    params[3],
    params[5],
    params[5],
    params[5],
    params[1],
    params[2],
    params[7],
  ];
  const rows: { id: string }[] = await manager.query(
    `INSERT INTO interview_webhook_deliveries (${DELIVERY_COLUMNS}) ${selectDeliveries} RETURNING id`,
    selectParams,
  );
  return rows.map((row) => row.id);
}
