/**
 * Claimed deliveries a worker process may hold per send slot (`webhooks.concurrency`): enough for
 * the next batches to be claimed while the current ones are sent and recorded.
 */
export const HELD_PER_SEND_SLOT = 16;

/**
 * The event bodies a worker process may hold, counted at `maxEventBytes` each: a claimed delivery
 * holds its event's body until its outcome is recorded, and with large events to receivers that
 * never answer, 16 per send slot of 1 MiB events held some 1.2 GiB.
 */
export const HELD_BODY_BUDGET_BYTES = 256 * 1024 * 1024;

/** What the claimed deliveries a worker holds depend on (the resolved options). */
export interface HeldOptions {
  batchSize: number;
  concurrency: number;
  maxEventBytes: number;
}

/**
 * Held per send slot however large the events: an endpoint whose pace is known holds two sends per
 * slot of its share (FairSendScheduler), and fewer would leave slots idle.
 */
const MIN_HELD_PER_SEND_SLOT = 2;

/**
 * The most deliveries a worker process holds claimed at once: HELD_PER_SEND_SLOT per send slot,
 * fewer where events as large as `maxEventBytes` would hold more than HELD_BODY_BUDGET_BYTES of
 * bodies, but never fewer than MIN_HELD_PER_SEND_SLOT per slot, and a batch always fits.
 */
export function heldLimit({ batchSize, concurrency, maxEventBytes }: HeldOptions): number {
  const bodiesFit = Math.floor(HELD_BODY_BUDGET_BYTES / maxEventBytes);
  const perSlot = Math.min(
    HELD_PER_SEND_SLOT * concurrency,
    Math.max(bodiesFit, MIN_HELD_PER_SEND_SLOT * concurrency),
  );
  return Math.max(perSlot, batchSize);
}

/**
 * How long a claim holds its delivery unless renewed. A worker renews the claims it holds every
 * CLAIM_RENEWAL_MS, however long they wait for their send, so a live worker never loses a claim
 * it has yet to send (another worker would then send the same attempt); the claims of a worker
 * that died expire within this.
 */
export const CLAIM_LEASE_MS = 60_000;

/** A third of the lease: a renewal can fail once (the database away for a moment) and none lapses. */
export const CLAIM_RENEWAL_MS = CLAIM_LEASE_MS / 3;

/**
 * How early a claim takes a delivery before it is due. A delivery's due time is stamped by the
 * process that published or recorded it, and compared with the claiming worker's clock: a
 * publisher whose clock runs a few milliseconds ahead would otherwise make every job find its new
 * deliveries not yet due, leaving them to the sweeper (30 s). A retry claimed this much early
 * changes nothing a receiver can tell.
 */
export const DUE_SKEW_ALLOWANCE_MS = 1_000;
