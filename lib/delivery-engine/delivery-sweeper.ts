import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { every } from '../clock/every.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { DeliveryQueue } from './delivery-queue.js';
import type { OverdueDelivery } from '../delivery-store/bound-statements.js';
import { DeliveryStore } from '../delivery-store/delivery-store.js';
import {
  SWEEP_JOBS_PER_PAGE,
  SWEEP_MAX_PAGES,
  SWEEP_TURN_SHARE_OF_INTERVAL,
} from '../interview-api.tuning.js';

/**
 * The outbox's safety net: a pending delivery overdue and held by nobody has lost its job (Redis
 * flushed, restarted or down, a worker killed), so it is queued again. A duplicate finds nothing to claim.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private stopSweeping: (() => void) | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly store: DeliveryStore,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly queue: DeliveryQueue,
    private readonly clock: Clock,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.worker) return;
    this.stopSweeping = every(
      this.options.webhooks.sweepIntervalMs,
      () => this.sweepInTurn(),
      (error) => this.logger.warn(`Sweep failed: ${String(error)}`),
    );
  }

  /**
   * A sweep, unless another worker process has begun one within most of this interval: after a
   * flush of Redis every worker would otherwise queue the whole backlog again, a duplicate job per
   * worker for each delivery. Answers how many it queued (none when it was not its turn).
   */
  async sweepInTurn(): Promise<number> {
    const turnMs = Math.floor(this.options.webhooks.sweepIntervalMs * SWEEP_TURN_SHARE_OF_INTERVAL);
    const inTurn = await this.queue.takeSweepTurn(turnMs);
    // A turn Redis granted once shutdown had begun (it may take 2 s): the database may be closed.
    return inTurn && !this.stopped ? this.sweep() : 0;
  }

  /** Queues the lost deliveries again; answers how many. */
  sweep(): Promise<number> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  /**
   * Oldest first, page after page while the queue as it was could not be carrying what was found (a
   * lost backlog goes back whole); one page when it could, which bounds a busy queue's duplicates.
   */
  private async run(): Promise<number> {
    try {
      const now = this.clock.now();
      // Younger deliveries may still be waiting in a healthy queue.
      const before = new Date(now.getTime() - this.options.webhooks.sweepIntervalMs);
      const { batchSize } = this.options.webhooks;
      const pageSize = batchSize * SWEEP_JOBS_PER_PAGE;
      let swept = 0;
      let after: OverdueDelivery | null = null;
      // What the queue could be carrying, read once the first page turns out full and before
      // anything is queued. Unknown when Redis does not answer: then as if it carried everything.
      let carried = Infinity;
      for (let page = 0; page < SWEEP_MAX_PAGES; page++) {
        const lost = await this.store.overdue(before, now, pageSize, after);
        if (lost.length === 0) break;
        const full = lost.length === pageSize;
        if (full && page === 0) carried = ((await this.queue.waitingJobs()) ?? Infinity) * batchSize;
        // Redis refusing it: the queue has warned, and the next sweep tries again.
        if (!(await this.dispatcher.enqueueNow(lost.map(({ id }) => id)))) break;
        swept += lost.length;
        if (!full || swept <= carried) break;
        after = lost[lost.length - 1];
      }
      if (swept > 0) this.logger.log(`Sweeper queued ${swept} overdue deliveries again.`);
      return swept;
    } catch (error) {
      this.logger.warn(`Sweep failed: ${String(error)}`);
      return 0;
    }
  }

  /** While the host's database, which a sweep reads, is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.stopSweeping?.();
    await this.running;
  }
}
