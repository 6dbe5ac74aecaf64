import {
  HELD_BODY_BUDGET_BYTES,
  HELD_PER_SEND_SLOT,
  MIN_HELD_PER_SEND_SLOT,
} from '../interview-api.tuning.js';

/** What the claimed deliveries a worker holds depend on (the resolved options). */
export interface HeldOptions {
  batchSize: number;
  concurrency: number;
  maxEventBytes: number;
}

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
