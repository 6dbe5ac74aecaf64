import type { EntityManager } from 'typeorm';
import { SqlDialect } from '../database/sql-dialect.js';
import { type DropReason, dropStatements } from './bound-statements.js';

/**
 * Disabling (or deleting) an endpoint drops its pending retries: they become failed at once, in
 * the caller's transaction, and a job that later carries them finds nothing to claim. A worker's
 * claim is left in place: an attempt already on the wire still reached the receiver, and the
 * claim's stamp is how the worker records it. A delivery published meanwhile, still pending, keeps
 * its schedule and fails unsent when claimed.
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
