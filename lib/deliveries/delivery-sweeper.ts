import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { DeliveryStore } from './delivery-store.js';

const SWEEP_LIMIT = 10_000;

/**
 * The outbox's safety net. The database, not Redis, is the source of truth: a pending delivery
 * that is overdue and claimed by nobody has lost its job (Redis flushed, restarted or down at
 * publish time, a worker killed), so it is queued again. A duplicate job is harmless: it finds
 * nothing to claim.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly store: DeliveryStore,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.worker) return;
    this.timer = setInterval(() => void this.sweep(), this.options.webhooks.sweepIntervalMs);
    this.timer.unref();
  }

  /** Queues the lost deliveries again; answers how many. */
  sweep(): Promise<number> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<number> {
    try {
      const now = this.clock.now();
      // Younger deliveries may still be waiting in a healthy queue.
      const before = new Date(now.getTime() - this.options.webhooks.sweepIntervalMs);
      const lost = await this.store.overdue(before, now, SWEEP_LIMIT);
      if (lost.length === 0) return 0;
      this.dispatcher.dispatch(lost.map(({ id }) => ({ id, nextAttemptAt: null })));
      await this.dispatcher.flush();
      this.logger.log(`Sweeper queued ${lost.length} overdue deliveries again.`);
      return lost.length;
    } catch (error) {
      this.logger.warn(`Sweep failed: ${String(error)}`);
      return 0;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
