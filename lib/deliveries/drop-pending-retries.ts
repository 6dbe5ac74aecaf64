import type { EntityManager } from 'typeorm';
import { SqlDialect } from '../database/sql-dialect.js';
import { AFTER, IN_ID_ORDER } from './delivery-lock-order.js';
import type { Statement } from '../database/statement.js';
import { DELIVERIES_TABLE as DELIVERIES } from './delivery.entity.js';
import { PENDING_TABLE as PENDING } from './pending-delivery.entity.js';
import { ENDPOINTS_TABLE as ENDPOINTS } from '../webhook-endpoints/webhook-endpoint.entity.js';

export type DropReason = 'endpoint_disabled' | 'endpoint_deleted';

/**
 * The statements that fail an endpoint's pending deliveries and take them off the schedule. They
 * are found through the schedule's index by endpoint (PendingDeliveryEntity), so a drop reads that
 * endpoint's pending rows only, whatever other accounts have pending: on PostgreSQL their ids as an
 * array, which the planner looks up one by one rather than scanning the deliveries (which have no
 * index on their endpoint alone), locked in id order first (see IN_ID_ORDER), and what the update
 * failed is exactly what leaves the schedule.
 * SQLite runs the two in turn on its one connection.
 */
export function dropStatements(
  sql: SqlDialect,
  endpointId: string,
  reason: DropReason,
  now: Date,
): Statement[] {
  const p = (n: number): string => sql.param(n);
  const failed = `UPDATE ${DELIVERIES} SET status = 'failed', error = ${p(1)}, next_attempt_at = NULL, updated_at = ${p(2)}
     WHERE endpoint_id = ${p(3)} AND status = 'pending'`;
  const params = [reason, sql.time(now), endpointId];
  // A worker holding one of these deliveries for its send tells by the count that it was dropped,
  // even once the endpoint is enabled again. On PostgreSQL the endpoint is locked (counted) before
  // its deliveries, in the order every writer takes them: the statements of a WITH otherwise run in
  // no set order, and a DELETE, which drops before it deletes, deadlocked with a worker's record.
  const counted = `UPDATE ${ENDPOINTS} SET retry_drops = retry_drops + 1 WHERE id = ${p(3)}`;
  if (sql.postgres) {
    return [
      {
        sql: `WITH counted AS (${counted} RETURNING id),
          locked AS (${IN_ID_ORDER(`ARRAY(SELECT delivery_id FROM ${PENDING} WHERE endpoint_id = ${p(3)}
            AND ${AFTER('counted')})`)}),
          dropped AS (${failed} AND id = ANY(ARRAY(SELECT id FROM locked)) RETURNING id)
          DELETE FROM ${PENDING} WHERE delivery_id = ANY(ARRAY(SELECT id FROM dropped))`,
        params,
      },
    ];
  }
  return [
    { sql: counted, params: [endpointId] },
    {
      sql: `${failed} AND id IN (SELECT delivery_id FROM ${PENDING} WHERE endpoint_id = ?)`,
      params: [...params, endpointId],
    },
    {
      sql: `DELETE FROM ${PENDING} WHERE endpoint_id = ? AND delivery_id IN
        (SELECT id FROM ${DELIVERIES} WHERE status <> 'pending' AND id IN (SELECT delivery_id FROM ${PENDING} WHERE endpoint_id = ?))`,
      params: [endpointId, endpointId],
    },
  ];
}

/**
 * Seed 4.2 rule 3: disabling (or deleting) an endpoint drops its pending retries. They become
 * failed at once, in the caller's transaction, and a job that later carries them finds nothing to
 * claim. A worker's claim (`claimed_at`, `locked_until`) is left in place: an attempt already on
 * the wire still reached the receiver, and the claim's stamp is how the worker records it on the
 * delivery. A delivery
 * published meanwhile, still pending, keeps its schedule and fails unsent when claimed.
 */
export async function dropPendingRetries(
  manager: EntityManager,
  endpointId: string,
  reason: DropReason,
  now: Date,
): Promise<void> {
  for (const { sql, params } of dropStatements(new SqlDialect(manager.connection), endpointId, reason, now)) {
    await manager.query(sql, params);
  }
}
