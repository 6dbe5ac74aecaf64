/**
 * Batches a worker process runs at once. Enough to overlap one batch's database writes with the
 * next one's sends (which the shared limiter bounds by webhooks.concurrency); more would only
 * compete with the host's own queries for the connection pool.
 */
export const JOB_CONCURRENCY = 8;

/** What a claim's length depends on (the resolved `webhooks` options). */
export interface LeaseOptions {
  timeoutMs: number;
  batchSize: number;
  concurrency: number;
}

/**
 * How long a claim holds its deliveries. A worker holds up to JOB_CONCURRENCY batches at once,
 * whose sends take turns in `concurrency` slots: when every attempt runs into its deadline, the
 * last claimed send starts after ⌈held / concurrency⌉ rounds of `timeoutMs`. The lease outlasts
 * that and the send itself, so a live worker never loses a claim it has yet to send (another
 * worker would then send the same attempt); a claim of a dead worker expires after it.
 */
export function claimLeaseMs({ timeoutMs, batchSize, concurrency }: LeaseOptions): number {
  const rounds = Math.ceil((JOB_CONCURRENCY * batchSize) / concurrency);
  return timeoutMs * (rounds + 1) + 30_000;
}
