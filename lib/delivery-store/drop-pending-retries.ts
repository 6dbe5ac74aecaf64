import type { EntityManager } from 'typeorm';
import { SqlDialect } from '../database/sql-dialect.js';
import { type DropReason, dropStatements } from './bound-statements.js';

/**
 * Fails an endpoint's pending retries (on disable or delete) at once, in the caller's transaction. A
 * worker's claim stays, so an attempt already on the wire is still recorded; a delivery published
 * meanwhile stays scheduled and fails unsent when claimed.
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
