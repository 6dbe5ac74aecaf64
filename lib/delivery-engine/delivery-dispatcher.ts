import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { type DeliveryBatch, DeliveryQueue } from './delivery-queue.js';
import { ENQUEUE_WINDOW_MS, RETRY_HOLD_LEAD_MS, RETRY_HOLD_MS } from '../interview-api.tuning.js';

/** A delivery to send: its id and when it is due. */
export interface DueDelivery {
  id: string;
  nextAttemptAt: Date | null;
}

/** Powers of two seconds, so that the cells of retries with nearby leads line up. */
const powerOfTwoSecondsMs = (atMostMs: number): number =>
  1000 * 2 ** Math.max(0, Math.floor(Math.log2(atMostMs / 1000)));

/**
 * When the job carrying a delivery due at `due` runs (0 when due now): `due` rounded up to its cell,
 * about a hundredth of the lead (at least a second, at most `maxCellMs`), so that a retry runs at
 * most about 1 % of its delay after its next_attempt_at.
 */
function cellOf(due: number, clockNow: number, maxCellMs: number): number {
  if (due <= clockNow) return 0;
  const cellMs = Math.min(powerOfTwoSecondsMs((due - clockNow) / 100), maxCellMs);
  return Math.ceil(due / cellMs) * cellMs;
}

/** Adds `id` to its cell of `cells`; answers the cell's ids. */
function addToCell(cells: Map<number, string[]>, cell: number, id: string): string[] {
  const ids = cells.get(cell) ?? [];
  ids.push(id);
  cells.set(cell, ids);
  return ids;
}

/**
 * Turns deliveries into queue jobs of up to `batchSize` ids. A delivery after a quiet window goes out
 * at once; under load, ids are gathered until ENQUEUE_WINDOW_MS has passed since the last enqueue (or
 * a batch is full) and added with one addBulk, so that each job and claim serves many deliveries.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationShutdown {
  private readonly batchSize: number;
  /**
   * At most half a sweep interval: the sweeper takes a delivery overdue by more than one for lost
   * and queues it again, which a retry waiting for the end of a longer cell would be.
   */
  private readonly maxCellMs: number;
  private buffer = new Map<number, string[]>();
  private buffered = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Retries due RETRY_HOLD_LEAD_MS or more ahead, by cell, until the hold timer enqueues them. */
  private held = new Map<number, string[]>();
  private holdTimer: NodeJS.Timeout | null = null;
  private lastFlushAt = -Infinity;
  private inFlight = new Set<Promise<boolean>>();

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly clock: Clock,
    @Inject(INTERVIEW_API_OPTIONS) options: ResolvedOptions,
  ) {
    this.batchSize = options.webhooks.batchSize;
    this.maxCellMs = powerOfTwoSecondsMs(options.webhooks.sweepIntervalMs / 2);
  }

  dispatch(deliveries: readonly DueDelivery[]): void {
    // Due times are the module's clock's; the coalescing window is the process's own time.
    const clockNow = this.clock.now().getTime();
    let buffered = 0;
    for (const delivery of deliveries) {
      const cell = cellOf(delivery.nextAttemptAt?.getTime() ?? 0, clockNow, this.maxCellMs);
      if (cell - clockNow >= RETRY_HOLD_LEAD_MS) {
        this.hold(cell, delivery.id);
        continue;
      }
      addToCell(this.buffer, cell, delivery.id);
      buffered++;
    }
    this.buffered += buffered;
    if (this.buffered === 0 || (this.timer && this.buffered < this.batchSize)) return;
    const wait = this.lastFlushAt + ENQUEUE_WINDOW_MS - Date.now();
    if (this.buffered >= this.batchSize || wait <= 0) void this.flush();
    else this.timer = setTimeout(() => void this.flush(), wait);
  }

  /** A retry far off waits with those of its cell; a full cell goes at once. */
  private hold(cell: number, id: string): void {
    const ids = addToCell(this.held, cell, id);
    if (ids.length >= this.batchSize) {
      this.held.delete(cell);
      void this.enqueue(new Map([[cell, ids]]));
    }
    if (this.held.size > 0 && !this.holdTimer) {
      this.holdTimer = setTimeout(() => void this.flushHeld(), RETRY_HOLD_MS);
      // Held retries are in the database too: they never keep a process alive.
      this.holdTimer.unref();
    }
  }

  /** Sends the retries held. */
  private flushHeld(): Promise<boolean> {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    const held = this.held;
    this.held = new Map();
    return this.enqueue(held);
  }

  /**
   * Sends what is buffered now (retries held for their cell apart); resolves when the queue has
   * it (true) or has refused it (false).
   */
  async flush(): Promise<boolean> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const buffered = this.buffer;
    this.buffer = new Map();
    this.buffered = 0;
    this.lastFlushAt = Date.now();
    return this.enqueue(buffered);
  }

  /**
   * Enqueues these deliveries, due now, at once and apart from the buffer; resolves true once the
   * queue has them, false if it refused them. The sweeper's pages go this way, so that what it reports
   * as queued is its own page, never a buffer that `dispatch` has flushed already.
   */
  enqueueNow(ids: readonly string[]): Promise<boolean> {
    return this.enqueue(new Map([[0, [...ids]]]));
  }

  private async enqueue(cells: Map<number, string[]>): Promise<boolean> {
    const clockNow = this.clock.now().getTime();
    const batches: DeliveryBatch[] = [];
    for (const [due, ids] of cells) {
      for (let i = 0; i < ids.length; i += this.batchSize) {
        batches.push({ ids: ids.slice(i, i + this.batchSize), delayMs: due - clockNow });
      }
    }
    if (batches.length === 0) return true;
    const added = this.queue.add(batches);
    this.inFlight.add(added);
    try {
      return await added;
    } finally {
      this.inFlight.delete(added);
    }
  }

  /**
   * Needs Redis only, which the queue closes after this hook: so the last flush waits until then, and
   * takes the retries recorded as the worker drained and whatever the host published meanwhile.
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.flush(), this.flushHeld()]);
    await Promise.all(this.inFlight);
  }
}
