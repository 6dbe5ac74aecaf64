import type { EntityManager } from 'typeorm';
import { queryPrepared } from '../database/prepared-statement.js';
import type { RowColumn, SqlDialect } from '../database/sql-dialect.js';
import { idTimePrefix } from '../identifiers/generate-id.js';
import { inTransaction } from '../database/in-transaction.js';
import { DELIVERIES_TABLE as DELIVERIES } from '../deliveries/delivery.entity.js';
import { PENDING_TABLE as PENDING } from '../deliveries/pending-delivery.entity.js';
import { ENDPOINTS_TABLE as ENDPOINTS } from '../webhook-endpoints/webhook-endpoint.entity.js';
import { EVENTS_TABLE as EVENTS } from './event.entity.js';

/** An event row to store, and where it goes. */
export interface OutboxEvent {
  id: string;
  accountId: string;
  livemode: boolean;
  type: string;
  payload: string;
  createdAt: Date;
  /** Every enabled subscribed endpoint of the account and mode, or this one endpoint (a test event). */
  endpointId: string | null;
}

const EVENT_COLUMNS = 'id, account_id, livemode, type, payload, created_at';
const DELIVERY_COLUMNS =
  'id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at';
/** The rows `v` every insert reads: one per event, with where its deliveries go. */
const VALUE_COLUMNS: readonly RowColumn[] = [
  ['id', 'text'],
  ['account_id', 'text'],
  ['livemode', 'boolean'],
  ['type', 'text'],
  ['payload', 'text'],
  ['created_at', 'timestamp'],
  ['delivery_prefix', 'text'],
  ['subscription', 'text'],
  ['endpoint_id', 'text'],
];

/**
 * Writes events and their pending deliveries atomically: on PostgreSQL in one statement (atomic by
 * itself, so no transaction round trips), on SQLite in three inside a transaction (a savepoint when
 * the manager already has one open).
 */
export function writeToOutboxAtomically(
  manager: EntityManager,
  sql: SqlDialect,
  events: readonly OutboxEvent[],
): Promise<Map<string, string[]>> {
  return sql.postgres
    ? writeToOutbox(manager, sql, events)
    : inTransaction(manager, (tx) => writeToOutbox(tx, sql, events));
}

/**
 * Writes events and their pending deliveries, each scheduled (PendingDeliveryEntity). On PostgreSQL
 * that is one statement; on SQLite three, which only `writeToOutboxAtomically` and a caller's open
 * transaction make atomic.
 * The fan-out happens in the database: endpoints are never loaded into the process. Answers the
 * delivery ids by event id.
 */
async function writeToOutbox(
  manager: EntityManager,
  sql: SqlDialect,
  events: readonly OutboxEvent[],
): Promise<Map<string, string[]>> {
  const rows = events.map((event) => [
    event.id,
    event.accountId,
    event.livemode,
    event.type,
    event.payload,
    sql.time(event.createdAt),
    idTimePrefix('dlv', event.createdAt),
    // enabled_events is stored as JSON text: a subscription contains the quoted type
    // (types are [a-z0-9_.] only, so quoting needs no escaping).
    JSON.stringify(event.type),
    event.endpointId,
  ]);
  const { cte: values, params } = sql.rows('v', VALUE_COLUMNS, rows);
  const randomPart = sql.postgres
    ? `substr(md5(random()::text || clock_timestamp()::text || e.id || v.id), 1, 16)`
    : `lower(hex(randomblob(8)))`;
  const contains = sql.postgres
    ? 'strpos(e.enabled_events, v.subscription) > 0'
    : 'instr(e.enabled_events, v.subscription) > 0';
  const insertDeliveries = `INSERT INTO ${DELIVERIES} (${DELIVERY_COLUMNS})
    SELECT v.delivery_prefix || ${randomPart}, e.account_id, e.livemode, e.id, v.id, v.type, 'pending', 0, v.created_at, v.created_at, v.created_at
    FROM v JOIN ${ENDPOINTS} e ON e.account_id = v.account_id AND e.livemode = v.livemode
    WHERE (v.endpoint_id IS NOT NULL AND e.id = v.endpoint_id)
       OR (v.endpoint_id IS NULL AND e.status = 'enabled' AND (e.enabled_events = '["*"]' OR ${contains}))
    RETURNING id, event_id, endpoint_id, next_attempt_at`;
  const insertEvents = `INSERT INTO ${EVENTS} (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM v`;
  const schedule = (deliveries: string): string =>
    `INSERT INTO ${PENDING} (delivery_id, next_attempt_at, endpoint_id) SELECT id, next_attempt_at, endpoint_id FROM ${deliveries}`;

  const created: { id: string; event_id: string }[] = sql.postgres
    ? await queryPrepared(
        manager,
        `WITH ${values}, inserted AS (${insertEvents}), delivered AS (${insertDeliveries}),
           scheduled AS (${schedule('delivered')})
         SELECT id, event_id FROM delivered`,
        params,
      )
    : await (async () => {
        await manager.query(`WITH ${values} ${insertEvents}`, params);
        const rows: { id: string; event_id: string }[] = await manager.query(
          `WITH ${values} ${insertDeliveries}`,
          params,
        );
        await manager.query(
          `WITH ${values} ${schedule(`${DELIVERIES} WHERE event_id IN (SELECT id FROM v)`)}`,
          params,
        );
        return rows;
      })();
  const byEvent = new Map<string, string[]>(events.map((event) => [event.id, []]));
  for (const row of created) byEvent.get(row.event_id)?.push(row.id);
  return byEvent;
}
