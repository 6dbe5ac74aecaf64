import type { EntityManager } from 'typeorm';
import type { AccountScope } from '../auth/account-scope.js';
import { ConflictError } from '../errors/api-error.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

/**
 * Refuses a new endpoint once the account has `max` in the scope's mode (bounding one publish's fan-out),
 * as the first statements of the caller's transaction. On PostgreSQL an advisory lock per account and
 * mode makes concurrent creations count one after another; SQLite runs one transaction at a time.
 */
export async function checkEndpointCap(
  manager: EntityManager,
  scope: AccountScope,
  max: number,
): Promise<void> {
  const mode = scope.livemode ? 'live' : 'test';
  if (manager.connection.options.type === 'postgres') {
    // The count must see what the lock's last holder committed, whatever the database's default
    // isolation: a snapshot taken before the lock was granted would not. Only a transaction's first
    // statement can set it, and this is the first of the endpoint's creation.
    await manager.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `interview_api.webhook_endpoints:${mode}:${scope.accountId}`,
    ]);
  }
  const count = await manager
    .getRepository(WebhookEndpointEntity)
    .countBy({ accountId: scope.accountId, livemode: scope.livemode });
  if (count >= max) {
    throw new ConflictError(
      `This account already has the maximum of ${max} webhook endpoints in ${mode} mode; delete one to add another.`,
    );
  }
}
