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
 * How long a claim holds its deliveries, when every attempt runs into its deadline. A delivery held
 * waits while its endpoint runs its share of the send slots: the endpoint holds at most
 * HELD_PER_SEND_SLOT sends per slot of its share, so that is at most HELD_PER_SEND_SLOT rounds of
 * `timeoutMs`. Otherwise every slot is busy with older sends, of which there are fewer than the
 * process holds: at most ⌈held / concurrency⌉ rounds. The lease outlasts both, the send itself and
 * its recording, so a live worker never loses a claim it has yet to send (another worker would
 * then send the same attempt); a claim of a dead worker expires after it.
 */
export function claimLeaseMs(options: LeaseOptions): number {
  const rounds = Math.ceil(heldLimit(options) / options.concurrency) + HELD_PER_SEND_SLOT;
  return options.timeoutMs * (rounds + 1) + 30_000;
}
