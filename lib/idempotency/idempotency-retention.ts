import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { PurgeSchedule } from '../clock/purge-schedule.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { IdempotencyStore } from './idempotency-store.js';

/** Keys of idempotent requests answer retries for a day; then the worker processes delete them. */
@Injectable()
export class IdempotencyRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly schedule = new PurgeSchedule('Idempotency key purge', () => this.store.purge());

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.worker) this.schedule.start();
  }

  beforeApplicationShutdown(): void {
    this.schedule.stop();
  }
}
