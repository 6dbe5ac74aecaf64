import { type RowColumn, rowsPerSqliteStatement, type SqlDialect } from '../database/sql-dialect.js';
import type { ClaimedDelivery } from './claimed-delivery.js';
import { DELIVERIES_TABLE as DELIVERIES } from './delivery.entity.js';
import type { Statement } from '../database/statement.js';
import { IN_ID_ORDER } from './delivery-lock-order.js';

/** The claims a renewal names: a delivery and the stamp of the claim held on it. */
const CLAIM_COLUMNS: readonly RowColumn[] = [
  ['id', 'text'],
  ['claim', 'timestamp'],
];

/**
 * The most claims one renewal names: as many as one statement binds on SQLite, with the lease's
 * end. PostgreSQL binds arrays and has no such limit, but a worker holding more renews them in a
 * few statements once every CLAIM_RENEWAL_MS, which costs it nothing that counts.
 */
export const CLAIMS_PER_RENEWAL = rowsPerSqliteStatement(CLAIM_COLUMNS, 1);

/**
 * Extends claims to `lockedUntil` where the delivery is still pending under the same claim: never
 * one another worker has taken since, nor one whose outcome is recorded (the record clears the
 * stamp). On PostgreSQL the ids are also named as a condition on the table, as those the lock
 * in id order returns, in a sub-select's array as the record names its own, so that the claims are
 * looked up by key.
 */
export function renewalStatement(
  sql: SqlDialect,
  held: readonly ClaimedDelivery[],
  lockedUntil: Date,
): Statement {
  const { cte, params } = sql.rows(
    'o',
    CLAIM_COLUMNS,
    held.map((delivery) => [delivery.id, sql.time(delivery.claimedAt)]),
  );
  const last = sql.param(params.length + 1);
  const lease = sql.postgres ? `CAST(${last} AS timestamp)` : last;
  // On PostgreSQL the ids are locked in id order first, as the others that lock many deliveries do.
  const locked = sql.postgres ? `, locked AS (${IN_ID_ORDER('ARRAY(SELECT id FROM o)')})` : '';
  const lookup = sql.postgres ? ` AND ${DELIVERIES}.id = ANY(ARRAY(SELECT id FROM locked))` : '';
  return {
    sql: `WITH ${cte}${locked} UPDATE ${DELIVERIES} SET locked_until = ${lease}
      FROM o WHERE ${DELIVERIES}.id = o.id AND ${DELIVERIES}.claimed_at = o.claim
        AND ${DELIVERIES}.status = 'pending'${lookup}`,
    params: [...params, sql.time(lockedUntil)],
  };
}
