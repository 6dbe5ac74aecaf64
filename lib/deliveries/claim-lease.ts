/**
 * Claimed deliveries a worker process may hold per send slot (`webhooks.concurrency`): enough for
 * the next batches to be claimed while the current ones are sent and recorded.
 */
export const HELD_PER_SEND_SLOT = 16;

/** What a claim's length depends on (the resolved `webhooks` options). */
export interface LeaseOptions {
  timeoutMs: number;
  batchSize: number;
  concurrency: number;
}

/** The most deliveries a worker process holds claimed at once (a batch always fits). */
export function heldLimit({ batchSize, concurrency }: LeaseOptions): number {
  return Math.max(HELD_PER_SEND_SLOT * concurrency, batchSize);
}

/**
 * How long a claim holds its deliveries. The deliveries a worker holds take turns in
 * `concurrency` send slots: when every attempt runs into its deadline, the last one held starts
 * after ⌈held / concurrency⌉ rounds of `timeoutMs`. The lease outlasts that, the send itself and
 * its recording, so a live worker never loses a claim it has yet to send (another worker would
 * then send the same attempt); a claim of a dead worker expires after it.
 */
export function claimLeaseMs(options: LeaseOptions): number {
  const rounds = Math.ceil(heldLimit(options) / options.concurrency);
  return options.timeoutMs * (rounds + 1) + 30_000;
}
