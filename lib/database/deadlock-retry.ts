import { DEADLOCK_MAX_PAUSE_MS, DEADLOCK_MAX_RUNS } from '../interview-api.tuning.js';

/** PostgreSQL's SQLSTATE for a transaction it aborted to break a deadlock. */
const DEADLOCK_DETECTED = '40P01';

function isDeadlock(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  return code === DEADLOCK_DETECTED || driverError?.code === DEADLOCK_DETECTED;
}

/**
 * Runs `work` again when PostgreSQL aborted it to break a deadlock, so a request does not fail and
 * a group of outcomes is not left unrecorded (its deliveries would be sent twice). `work` must be one
 * whole transaction or statement, so that nothing of the aborted run remains.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await work();
    } catch (error) {
      if (run >= DEADLOCK_MAX_RUNS || !isDeadlock(error)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * DEADLOCK_MAX_PAUSE_MS * run));
  }
}
