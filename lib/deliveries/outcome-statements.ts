import type { RowColumn, RowsCte, SqlDialect } from '../database/sql-dialect.js';
import { generateId } from '../identifiers/generate-id.js';
import type { Statement } from '../database/statement.js';
import type { DeliveryOutcome } from './claimed-delivery.js';
import { ATTEMPTS_TABLE as ATTEMPTS } from './attempt.entity.js';
import { DELIVERIES_TABLE as DELIVERIES } from './delivery.entity.js';
import { PENDING_TABLE as PENDING } from './pending-delivery.entity.js';
import { ENDPOINTS_TABLE as ENDPOINTS } from '../webhook-endpoints/webhook-endpoint.entity.js';
import { AFTER } from './delivery-lock-order.js';

/**
 * The rows `o` that every statement recording a batch reads, one per outcome: `claim` is the
 * stamp of the worker's claim, `attempt` the attempts made with this one counted, `attempted` 1 or 0.
 */
const OUTCOME_COLUMNS: readonly RowColumn[] = [
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
];

function outcomeRow(outcome: DeliveryOutcome, now: Date, sql: SqlDialect): unknown[] {
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
}

/**
 * The attempts of the deliveries whose claim still held, read from `source` (where `held` tells
 * which, unless every row did): a worker whose claim lapsed meanwhile (its delivery claimed and
 * attempted again elsewhere) would add a second attempt of the same number, or one of a delivery
 * retention has removed.
 */
const attemptsInsert = (now: string, source: string, held?: string): string =>
  `INSERT INTO ${ATTEMPTS} (id, delivery_id, attempt, response_status, response_body, error, duration_ms, created_at)
   SELECT attempt_id, id, attempt, response_status, response_body, error, COALESCE(duration_ms, 0), ${now}
   FROM ${source} WHERE attempted = 1${held ? ` AND ${held}` : ''}`;

/**
 * PostgreSQL: the deliveries' update returns, with each delivery it changed, the attempt its
 * outcome carries, so that the attempts are inserted from it. Matching the outcomes to the update's
 * rows instead (`o.id IN (SELECT id FROM updated)`) was planned as a nested loop over both, which
 * the planner takes for a row each: 200 outcomes cost 20,000 comparisons of ids.
 */
const ATTEMPT_RETURNED =
  'o.attempted, o.attempt_id, o.attempt, o.response_status, o.response_body, o.error, o.duration_ms';
/** SQLite, before the update: the delivery is still under the claim the worker took. */
const HELD_ON_SQLITE = `EXISTS (SELECT 1 FROM ${DELIVERIES} d WHERE d.id = o.id AND d.claimed_at = o.claim)`;

/** Any success ends its endpoint's failing streak. */
const STREAKS_CLEARED = `UPDATE ${ENDPOINTS} SET failing_since = NULL
   WHERE failing_since IS NOT NULL AND id IN (SELECT endpoint_id FROM o WHERE attempted = 1 AND status = 'succeeded')`;

/**
 * PostgreSQL: the batch's ids as a condition on the deliveries table, in a sub-select's array. The
 * planner cannot see how many ids that yields, plans for a few and looks them up by key. Given the
 * array itself (or only the join to the outcomes) it counts a probe per id, and on a table of up to
 * some thousand pages (a new or quiet one, whose statistics predate the burst) finds scanning the
 * whole table cheaper, for every batch.
 */
const BATCH_IDS = `${DELIVERIES}.id = ANY(ARRAY(SELECT id FROM o))`;

/**
 * A delivery is only updated while this worker's claim still holds it; one dropped meanwhile
 * still counts the attempt, but keeps its reason unless that attempt succeeded. An outcome with no
 * attempt keeps what the last attempt left (its reply, and its error while still pending, as a
 * delivery given back unsent does).
 */
const deliveriesUpdate = (now: string, lookup = ''): string => {
  const d = DELIVERIES;
  const live = `(${d}.status = 'pending' OR o.status = 'succeeded')`;
  const sent = (column: string): string =>
    `CASE WHEN o.attempted = 1 THEN o.${column} ELSE ${d}.${column} END`;
  return `UPDATE ${d} SET
     status = CASE WHEN ${live} THEN o.status ELSE ${d}.status END,
     error = CASE WHEN ${live} AND (o.attempted = 1 OR o.status <> 'pending') THEN o.error ELSE ${d}.error END,
     next_attempt_at = CASE WHEN ${d}.status = 'pending' THEN o.next_attempt_at ELSE NULL END,
     attempt = o.attempt, response_status = ${sent('response_status')}, response_body = ${sent('response_body')},
     duration_ms = ${sent('duration_ms')}, locked_until = NULL, claimed_at = NULL, updated_at = ${now}
   FROM o WHERE ${d}.id = o.id AND ${d}.claimed_at = o.claim${lookup}`;
};

/**
 * PostgreSQL: the schedule follows the deliveries the update changed (`updated`, as they are now):
 * a finished delivery leaves it, one still pending is due at its new time. A delivery another
 * claim holds now was not updated, and its schedule is left to that claim's record.
 */
const RESCHEDULED = `INSERT INTO ${PENDING} (delivery_id, next_attempt_at, endpoint_id)
   SELECT id, next_attempt_at, endpoint_id FROM updated WHERE status = 'pending'
   ON CONFLICT (delivery_id) DO UPDATE SET next_attempt_at = EXCLUDED.next_attempt_at`;
/**
 * Joined to the update's rows rather than named in an array (`delivery_id = ANY(...)`): on a
 * schedule the planner's statistics take for a few pages, the array was a filter on a scan of the
 * whole schedule, its ids compared one by one with every row's.
 */
const UNSCHEDULED = `DELETE FROM ${PENDING} USING updated
   WHERE ${PENDING}.delivery_id = updated.id AND updated.status <> 'pending'`;

/** SQLite, whose statements cannot read another's RETURNING: the batch's schedule made to match its deliveries. */
const SCHEDULE_SYNCED_ON_SQLITE = {
  unscheduled: `DELETE FROM ${PENDING} WHERE delivery_id IN
     (SELECT id FROM ${DELIVERIES} WHERE id IN (SELECT id FROM o) AND status <> 'pending')`,
  rescheduled: `INSERT OR REPLACE INTO ${PENDING} (delivery_id, next_attempt_at, endpoint_id)
     SELECT id, next_attempt_at, endpoint_id FROM ${DELIVERIES} WHERE id IN (SELECT id FROM o) AND status = 'pending'`,
};

/**
 * The statements that record a batch, all reading the outcomes as rows `o`. On PostgreSQL that is
 * one statement (atomic by itself, so no transaction round trips), whose update also names the
 * ids as a condition on the table (`BATCH_IDS`) and waits for the streaks healed (`healed`): the
 * endpoints are locked before the deliveries, as every writer takes them (the statements of a WITH
 * otherwise run in no set order); on SQLite four or five for each part of the batch
 * that one statement can bind (2,730 outcomes), run in order in the record's one transaction.
 */
export function recordStatements(
  sql: SqlDialect,
  outcomes: readonly DeliveryOutcome[],
  now: Date,
): Statement[] {
  if (!sql.postgres) {
    return sql.parts(outcomes, OUTCOME_COLUMNS, 1).flatMap((part) => recordOnSqlite(sql, part, now));
  }
  const { cte, params } = outcomeRows(sql, outcomes, now);
  const withNow = [...params, sql.time(now)];
  const nowParam = `CAST($${withNow.length} AS timestamp)`;
  return [
    {
      sql: `WITH ${cte},
          healed AS (${STREAKS_CLEARED} RETURNING id),
          updated AS (${deliveriesUpdate(nowParam, ` AND ${BATCH_IDS} AND ${AFTER('healed')}`)}
            RETURNING ${DELIVERIES}.id, ${DELIVERIES}.status, ${DELIVERIES}.next_attempt_at, ${DELIVERIES}.endpoint_id,
              ${ATTEMPT_RETURNED}),
          recorded AS (${attemptsInsert(nowParam, 'updated')}),
          rescheduled AS (${RESCHEDULED})
          ${UNSCHEDULED}`,
      params: withNow,
    },
  ];
}

function outcomeRows(sql: SqlDialect, outcomes: readonly DeliveryOutcome[], now: Date): RowsCte {
  return sql.rows(
    'o',
    OUTCOME_COLUMNS,
    outcomes.map((outcome) => outcomeRow(outcome, now, sql)),
  );
}

/**
 * SQLite: the statements recording outcomes that one statement can bind (their values and `now`).
 * A delivery's attempt is inserted before the update clears its claim, which tells it is held.
 */
function recordOnSqlite(sql: SqlDialect, outcomes: readonly DeliveryOutcome[], now: Date): Statement[] {
  const { cte, params } = outcomeRows(sql, outcomes, now);
  const withNow = [...params, sql.time(now)];
  const statements = [
    { sql: `WITH ${cte} ${attemptsInsert('?', 'o', HELD_ON_SQLITE)}`, params: withNow },
    { sql: `WITH ${cte} ${deliveriesUpdate('?')}`, params: withNow },
    { sql: `WITH ${cte} ${SCHEDULE_SYNCED_ON_SQLITE.unscheduled}`, params },
    { sql: `WITH ${cte} ${SCHEDULE_SYNCED_ON_SQLITE.rescheduled}`, params },
  ];
  if (outcomes.some((o) => o.attempted && o.status === 'succeeded')) {
    statements.push({ sql: `WITH ${cte} ${STREAKS_CLEARED}`, params });
  }
  return statements;
}
