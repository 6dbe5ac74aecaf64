import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryProcessor } from './delivery-processor.js';
import { DELIVERY_QUEUE_NAME, type DeliveryBatchJob } from './delivery-queue.js';
import { createRedisConnection } from './redis-connection.js';

/**
 * Batches a worker process runs at once. Enough to overlap one batch's database writes with the
 * next one's sends (which the shared limiter bounds by webhooks.concurrency); more would only
 * compete with the host's own queries for the connection pool.
 */
const JOB_CONCURRENCY = 8;

/**
 * The consumer side: a BullMQ worker feeding batches to the processor. Several processes on one
 * Redis share the work; `worker: false` runs the API without one. Shutdown waits for the batches
 * in flight, so their sends are recorded; a killed process leaves claims that expire.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private worker: Worker<DeliveryBatchJob, number> | null = null;
  private connection: Redis | null = null;

  constructor(
    private readonly processor: DeliveryProcessor,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.worker) return;
    this.connection = createRedisConnection(this.options.redis, 'worker');
    this.connection.on('error', () => undefined);
    this.worker = new Worker<DeliveryBatchJob, number>(
      DELIVERY_QUEUE_NAME,
      (job) => this.processor.process(job.data.ids),
      {
        connection: this.connection,
        prefix: this.options.queuePrefix,
        concurrency: JOB_CONCURRENCY,
        lockDuration: this.options.webhooks.timeoutMs * 2 + 30_000,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 1000 },
      },
    );
    this.worker.on('error', (error) => this.logger.warn(`Delivery worker: ${error.message}`));
    this.worker.on('failed', (_job, error) =>
      this.logger.warn(`Delivery batch failed (the sweeper retries it): ${error.message}`),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    this.connection?.disconnect();
  }
}
