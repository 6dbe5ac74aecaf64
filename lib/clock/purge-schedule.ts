import { Logger } from '@nestjs/common';
import { every } from './every.js';
import { FIRST_PURGE_MS, PURGE_INTERVAL_MS } from '../interview-api.tuning.js';

/**
 * When a retention purges: hourly once started, the first time a minute after start; a failed
 * purge is logged as `<what> failed: <error>` and the next runs on time.
 */
export class PurgeSchedule {
  private readonly logger = new Logger('InterviewApi');
  private stopTimer: (() => void) | null = null;

  constructor(
    private readonly what: string,
    private readonly purge: () => Promise<unknown>,
  ) {}

  start(): void {
    this.stopTimer = every(
      PURGE_INTERVAL_MS,
      this.purge,
      (error) => this.logger.warn(`${this.what} failed: ${String(error)}`),
      FIRST_PURGE_MS,
    );
  }

  /**
   * Called before TypeORM closes the host's DataSource (beforeApplicationShutdown), which a purge
   * starting then would meet closed. A purge under way runs on: it is not awaited.
   */
  stop(): void {
    this.stopTimer?.();
  }
}
