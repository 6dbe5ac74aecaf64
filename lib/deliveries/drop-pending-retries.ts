import type { EntityManager } from 'typeorm';
import { DeliveryEntity } from './delivery.entity.js';

/**
 * Seed 4.2 rule 3: disabling (or deleting) an endpoint drops its pending retries. They become
 * failed at once, in the caller's transaction, and a job that later carries them finds nothing to
 * claim. A worker's claim (`locked_until`) is left in place: an attempt already on the wire still
 * reached the receiver, and the claim is how the worker records it on the delivery.
 */
export async function dropPendingRetries(
  manager: EntityManager,
  endpointId: string,
  reason: 'endpoint_disabled' | 'endpoint_deleted',
  now: Date,
): Promise<void> {
  await manager
    .createQueryBuilder()
    .update(DeliveryEntity)
    .set({ status: 'failed', error: reason, nextAttemptAt: null, updatedAt: now })
    .where('endpoint_id = :endpointId', { endpointId })
    .andWhere("status = 'pending'")
    .execute();
}
