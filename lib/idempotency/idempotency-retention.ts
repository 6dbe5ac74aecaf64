import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { every } from '../clock/every.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { IdempotencyStore } from './idempotency-store.js';

const PURGE_INTERVAL_MS = 3_600_000;
/**
 * The first purge, a minute after start: a worker restarted more often than hourly (a deploy a
 * day, an autoscaler) would otherwise never purge.
 */
const FIRST_PURGE_MS = 60_000;

/** Keys of idempotent requests answer retries for a day; then the worker processes delete them. */
@Injectable()
export class IdempotencyRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private stop: (() => void) | null = null;

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.worker) return;
    this.stop = every(
      PURGE_INTERVAL_MS,
      () => this.store.purge(),
      (error) => this.logger.warn(`Idempotency key purge failed: ${String(error)}`),
      FIRST_PURGE_MS,
    );
  }

  /** Before TypeORM closes the host's DataSource, which a purge starting then would meet closed. */
  beforeApplicationShutdown(): void {
    this.stop?.();
  }
}
