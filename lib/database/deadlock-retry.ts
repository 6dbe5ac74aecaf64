import { DEADLOCK_MAX_PAUSE_MS, DEADLOCK_MAX_RUNS } from '../interview-api.tuning.js';

/** PostgreSQL's SQLSTATE for a transaction it aborted to break a deadlock. */
const DEADLOCK_DETECTED = '40P01';

function isDeadlock(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  return code === DEADLOCK_DETECTED || driverError?.code === DEADLOCK_DETECTED;
}

/**
 * Runs `work` again when PostgreSQL aborted it to break a deadlock. Rows locked in different
 * orders by two transactions (a worker recording a group of outcomes, which updates deliveries then
 * their endpoints, and a request disabling an endpoint, which updates it then its deliveries) can
 * deadlock; PostgreSQL then rolls one back after a second. Run again, it waits for the other to
 * commit and goes through, instead of failing a request or leaving outcomes unrecorded (their
 * claims would lapse and the sweeper would send the deliveries a second time). `work` must be one
 * whole transaction or statement: nothing of the aborted run remains.
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
