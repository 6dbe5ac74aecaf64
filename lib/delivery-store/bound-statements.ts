import { type ArrayElementType, BinaryArray } from '../database/binary-array.js';
import { rowsPerSqliteStatement, type SqlDialect } from '../database/sql-dialect.js';
import type { Statement } from '../database/statement.js';
import { generateId, idTimePrefix } from '../identifiers/generate-id.js';
import type { DeliveryOutcome } from './claimed-delivery.js';
import * as PG from './postgres-statements.js';
import * as SQLITE from './sqlite-statements.js';

/**
 * The store's statements with their values bound, in the form each database takes them: arrays of
 * one column each on PostgreSQL, value by value on SQLite (timestamps as the UTC text its columns
 * hold). The statements themselves are in postgres-statements.ts and sqlite-statements.ts.
 */

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

/** Why an endpoint's pending retries are dropped (their `error`). */
export type DropReason = 'endpoint_disabled' | 'endpoint_deleted';

/** An overdue delivery as the sweeper finds it; the last of a page is where the next one starts. */
export interface OverdueDelivery {
  id: string;
  /** Its place in the schedule, as the database gave it. */
  due: Date | string;
}

/** Values per outcome row (RECORD_OUTCOMES): the most one SQLite statement binds, besides now. */
const OUTCOME_VALUES = 12;
/** Values per claim row (RENEW_CLAIMS). */
const CLAIM_VALUES = 2;

/**
 * The most claims one renewal names: as many as one statement binds on SQLite, with the lease's
 * end. PostgreSQL binds arrays and has no such limit; a worker holding more renews them in a few
 * statements.
 */
export const CLAIMS_PER_RENEWAL = rowsPerSqliteStatement(CLAIM_VALUES, 1);

/** `count` placeholders, for a SQLite IN list. */
export function idList(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** `count` rows of `width` placeholders each, for a SQLite VALUES list. */
function valuesList(count: number, width: number): string {
  const row = `(${idList(width)})`;
  return Array.from({ length: count }, () => row).join(', ');
}

/** Binds `rows` as one array per column on PostgreSQL. */
function columns(types: readonly ArrayElementType[], rows: readonly unknown[][]): BinaryArray[] {
  return types.map(
    (type, i) =>
      new BinaryArray(
        type,
        rows.map((row) => row[i]),
      ),
  );
}

/** The rows in parts of at most `size`, as many as one SQLite statement binds. */
export function inParts<T>(rows: readonly T[], size: number): (readonly T[])[] {
  const result: (readonly T[])[] = [];
  for (let start = 0; start < rows.length; start += size) result.push(rows.slice(start, start + size));
  return result;
}

/** Writes events with their deliveries, each scheduled: one statement on PostgreSQL, three on SQLite. */
export function publishStatements(sql: SqlDialect, events: readonly OutboxEvent[]): Statement[] {
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
  if (sql.postgres) {
    const types = ['text', 'text', 'boolean', 'text', 'text', 'timestamptz', 'text', 'text', 'text'] as const;
    return [{ sql: PG.PUBLISH, params: columns(types, rows) }];
  }
  const values = valuesList(rows.length, 9);
  const params = rows.flat();
  return [
    { sql: SQLITE.PUBLISH.events(values), params },
    { sql: SQLITE.PUBLISH.deliveries(values), params },
    { sql: SQLITE.PUBLISH.schedule(values), params },
  ];
}

/**
 * The statements that record a batch of outcomes, sorted by delivery id (a plan that reads them
 * first then locks their deliveries in id order). On PostgreSQL one statement; on SQLite four or
 * five for each part of the batch that one statement can bind.
 */
export function recordStatements(
  sql: SqlDialect,
  outcomes: readonly DeliveryOutcome[],
  now: Date,
): Statement[] {
  const row = (outcome: DeliveryOutcome): unknown[] => {
    const { delivery, attempted } = outcome;
    return [
      delivery.id,
      sql.time(delivery.claimedAt),
      outcome.status,
      attempted ? delivery.attempt + 1 : delivery.attempt,
      outcome.responseStatus,
      outcome.responseBody,
      outcome.error,
      outcome.durationMs,
      sql.time(outcome.nextAttemptAt),
      attempted ? 1 : 0,
      attempted ? generateId('att', now) : null,
      delivery.endpointId,
    ];
  };
  if (sql.postgres) {
    const types = [
      'text',
      'timestamptz',
      'text',
      'integer',
      'integer',
      'text',
      'text',
      'integer',
      'timestamptz',
      'integer',
      'text',
      'text',
    ] as const;
    return [{ sql: PG.RECORD_OUTCOMES, params: [...columns(types, outcomes.map(row)), now] }];
  }
  return inParts(outcomes, rowsPerSqliteStatement(OUTCOME_VALUES, 1)).flatMap((part) => {
    const values = valuesList(part.length, OUTCOME_VALUES);
    const params = part.flatMap(row);
    const withNow = [...params, sql.time(now)];
    const statements: Statement[] = [
      { sql: SQLITE.RECORD_OUTCOMES.attempts(values), params: withNow },
      { sql: SQLITE.RECORD_OUTCOMES.deliveries(values), params: withNow },
      { sql: SQLITE.RECORD_OUTCOMES.unscheduled(values), params },
      { sql: SQLITE.RECORD_OUTCOMES.rescheduled(values), params },
    ];
    if (part.some((outcome) => outcome.attempted && outcome.status === 'succeeded')) {
      statements.push({ sql: SQLITE.RECORD_OUTCOMES.streaksEnded(values), params });
    }
    return statements;
  });
}

/** Extends the claims `held` (a delivery's id and its claim's stamp each) to `lockedUntil`. */
export function renewalStatement(
  sql: SqlDialect,
  held: readonly { id: string; claimedAt: Date }[],
  lockedUntil: Date,
): Statement {
  const rows = held.map((delivery) => [delivery.id, sql.time(delivery.claimedAt)]);
  if (sql.postgres) {
    return { sql: PG.RENEW_CLAIMS, params: [...columns(['text', 'timestamptz'], rows), lockedUntil] };
  }
  return {
    sql: SQLITE.RENEW_CLAIMS(valuesList(rows.length, CLAIM_VALUES)),
    params: [...rows.flat(), sql.time(lockedUntil)],
  };
}

/** Fails an endpoint's pending deliveries and takes them off the schedule. */
export function dropStatements(
  sql: SqlDialect,
  endpointId: string,
  reason: DropReason,
  now: Date,
): Statement[] {
  if (sql.postgres) return [{ sql: PG.DROP_PENDING_RETRIES, params: [reason, now, endpointId] }];
  return [
    { sql: SQLITE.DROP_PENDING_RETRIES.counted, params: [endpointId] },
    { sql: SQLITE.DROP_PENDING_RETRIES.failed, params: [reason, sql.time(now), endpointId, endpointId] },
    { sql: SQLITE.DROP_PENDING_RETRIES.unscheduled, params: [endpointId, endpointId] },
  ];
}

/** A page of the overdue deliveries due by `before` and held by nobody at `now`, after `after`. */
export function overdueStatement(
  sql: SqlDialect,
  before: Date,
  now: Date,
  limit: number,
  after: OverdueDelivery | null = null,
): Statement {
  if (sql.postgres) {
    return after
      ? { sql: PG.OVERDUE_NEXT_PAGE, params: [before, now, limit, after.due, after.id] }
      : { sql: PG.OVERDUE_FIRST_PAGE, params: [before, now, limit] };
  }
  const [by, at] = [sql.time(before), sql.time(now)];
  return after
    ? { sql: SQLITE.OVERDUE_NEXT_PAGE, params: [by, by, at, after.due, after.due, after.id, limit] }
    : { sql: SQLITE.OVERDUE_FIRST_PAGE, params: [by, by, at, limit] };
}

/**
 * The purge of the events below `cutoff` (the lowest visible id) with their deliveries, attempts
 * and schedule rows, in order; `count` answers how many events go.
 */
export function purgeStatements(
  sql: SqlDialect,
  cutoff: string,
): { before: Statement[]; count: Statement; events: Statement } {
  const statements = sql.postgres ? PG.PURGE_EXPIRED : SQLITE.PURGE_EXPIRED;
  const bound = (text: string): Statement => ({ sql: text, params: [cutoff] });
  return {
    before: [
      ...(sql.postgres ? [bound(PG.PURGE_EXPIRED.lockDeliveries)] : []),
      bound(statements.attempts),
      bound(statements.schedule),
      bound(statements.deliveries),
    ],
    count: bound(statements.count),
    events: bound(statements.events),
  };
}
