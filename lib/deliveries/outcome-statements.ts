import { generateId } from '../identifiers/generate-id.js';
import type { DeliveryOutcome } from './claimed-delivery.js';

/** A statement and its bind values. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The rows `o` that every statement recording a batch reads, one per outcome: `claim` is the
 * lease the worker took, `attempt` the attempts made with this one counted, `attempted` 1 or 0.
 */
const OUTCOME_COLUMNS = [
  ['id', 'text'],
  ['claim', 'timestamp'],
  ['status', 'text'],
  ['attempt', 'integer'],
  ['response_status', 'integer'],
  ['response_body', 'text'],
  ['error', 'text'],
  ['duration_ms', 'integer'],
  ['next_attempt_at', 'timestamp'],
  ['attempted', 'integer'],
  ['attempt_id', 'text'],
  ['endpoint_id', 'text'],
] as const;
const COLUMN_NAMES = OUTCOME_COLUMNS.map(([name]) => name).join(', ');

/** A timestamp as the dialect binds it (SQLite keeps UTC text, TypeORM's format). */
type BindTime = (date: Date | null) => Date | string | null;

function outcomeRow(outcome: DeliveryOutcome, now: Date, time: BindTime): unknown[] {
  const { delivery, attempted } = outcome;
  return [
    delivery.id,
    time(delivery.lockedUntil),
    outcome.status,
    attempted ? delivery.attempt + 1 : delivery.attempt,
    outcome.responseStatus,
    outcome.responseBody,
    outcome.error,
    outcome.durationMs,
    time(outcome.nextAttemptAt),
    attempted ? 1 : 0,
    attempted ? generateId('att', now) : null,
    delivery.endpointId,
  ];
}

const attemptsInsert = (now: string): string =>
  `INSERT INTO interview_webhook_attempts (id, delivery_id, attempt, response_status, response_body, error, duration_ms, created_at)
   SELECT attempt_id, id, attempt, response_status, response_body, error, COALESCE(duration_ms, 0), ${now}
   FROM o WHERE attempted = 1`;

/** Any success ends its endpoint's failing streak. */
const STREAKS_CLEARED = `UPDATE interview_webhook_endpoints SET failing_since = NULL
   WHERE failing_since IS NOT NULL AND id IN (SELECT endpoint_id FROM o WHERE attempted = 1 AND status = 'succeeded')`;

/**
 * A delivery is only updated while this worker's claim still holds it; one dropped meanwhile
 * still counts the attempt, but keeps its reason unless that attempt succeeded. `lookup` names the
 * ids once more as a condition on the table itself: joined to the outcomes alone, a planner that
 * sees a table of some thousand rows hashes the outcomes and scans the whole table for each batch.
 */
const deliveriesUpdate = (now: string, lookup = ''): string => {
  const table = 'interview_webhook_deliveries';
  const live = `(${table}.status = 'pending' OR o.status = 'succeeded')`;
  return `UPDATE ${table} SET
     status = CASE WHEN ${live} THEN o.status ELSE ${table}.status END,
     error = CASE WHEN ${live} THEN o.error ELSE ${table}.error END,
     next_attempt_at = CASE WHEN ${table}.status = 'pending' THEN o.next_attempt_at ELSE NULL END,
     attempt = o.attempt, response_status = o.response_status, response_body = o.response_body,
     duration_ms = o.duration_ms, locked_until = NULL, updated_at = ${now}
   FROM o WHERE ${table}.id = o.id AND ${table}.locked_until = o.claim${lookup}`;
};

/**
 * Recording a batch on PostgreSQL, as one statement (atomic by itself, so no transaction round
 * trips). The outcomes arrive as arrays, one per column, so the statement text is the same for
 * every batch and cheap to parse and plan, however many deliveries it holds.
 */
export function recordOnPostgres(outcomes: readonly DeliveryOutcome[], now: Date): Statement {
  const columns = OUTCOME_COLUMNS.map((): unknown[] => []);
  for (const outcome of outcomes) {
    outcomeRow(outcome, now, (date) => date).forEach((value, i) => columns[i].push(value));
  }
  const arrays = OUTCOME_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  const nowParam = `CAST($${OUTCOME_COLUMNS.length + 1} AS timestamp)`;
  return {
    sql: `WITH o AS (SELECT * FROM unnest(${arrays}) AS o(${COLUMN_NAMES})),
      recorded AS (${attemptsInsert(nowParam)}),
      healed AS (${STREAKS_CLEARED})
      ${deliveriesUpdate(nowParam, ` AND interview_webhook_deliveries.id = ANY($1::text[])`)}`,
    params: [...columns, now],
  };
}

/** Recording a batch on SQLite, as statements that each read the outcomes from a VALUES list. */
export function recordOnSqlite(outcomes: readonly DeliveryOutcome[], now: Date, time: BindTime): Statement[] {
  const params = outcomes.flatMap((outcome) => outcomeRow(outcome, now, time));
  const row = `(${OUTCOME_COLUMNS.map(() => '?').join(', ')})`;
  const values = `WITH o(${COLUMN_NAMES}) AS (VALUES ${outcomes.map(() => row).join(', ')})`;
  const withNow = [...params, time(now)];
  const statements = [
    { sql: `${values} ${attemptsInsert('?')}`, params: withNow },
    { sql: `${values} ${deliveriesUpdate('?')}`, params: withNow },
  ];
  if (outcomes.some((o) => o.attempted && o.status === 'succeeded')) {
    statements.push({ sql: `${values} ${STREAKS_CLEARED}`, params });
  }
  return statements;
}
