import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { INSTALLATION_ID } from '../installation/installation-id.js';
import { RepeatLimitedWarnings } from '../errors/repeat-limited-warnings.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryProcessor } from './delivery-processor.js';
import { DELIVERY_QUEUE_NAME, type DeliveryBatchJob, deliveryQueuePrefix } from './delivery-queue.js';
import { createRedisConnection } from '../redis/redis-connection.js';
import { COMPLETION_WRITE_MS, WORKER_JOB_CONCURRENCY } from '../interview-api.tuning.js';

/**
 * The consumer side: a BullMQ worker feeding batches to the processor. Several processes on one
 * Redis share the work; `worker: false` runs the API without one. Shutdown waits for the batches
 * in flight, so their sends are recorded; a killed process leaves claims that expire.
 */
@Injectable()
export class DeliveryWorker
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('InterviewApi');
  private worker: Worker<DeliveryBatchJob, number> | null = null;
  private connection: Redis | null = null;
  private closing = false;
  /** Redis is retried every second or so while it is away: its error is not logged each time. */
  private readonly errors = new RepeatLimitedWarnings((message) =>
    this.logger.warn(`Delivery worker: ${message}`),
  );
  /** The batches this process is claiming now. */
  private readonly active = new Set<Promise<number>>();

  constructor(
    // Null in a process with `worker: false`, which never starts the worker.
    @Inject(DeliveryProcessor) private readonly processor: DeliveryProcessor | null,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    @Inject(INSTALLATION_ID) private readonly installationId: string,
  ) {}

  onApplicationBootstrap(): void {
    const processor = this.processor;
    if (processor === null) return;
    const connection = createRedisConnection(this.options.redis, 'worker');
    // Until the worker starts (it reports its own connection's errors), a Redis never reached, or
    // one refusing the credentials, is said once a minute: nothing else would tell why nothing is sent.
    connection.on('error', (error: Error) => {
      if (this.worker === null) {
        this.errors.add(
          `cannot reach Redis (${error.message}); nothing is sent until it answers, and the database keeps every delivery`,
        );
      }
    });
    this.connection = connection;
    // Created once Redis first answers: BullMQ would wait without end for a Redis never reached,
    // and its close() with it, so a host started while Redis is down could never stop.
    if (connection.status === 'ready') this.start(connection, processor);
    else connection.once('ready', () => this.start(connection, processor));
  }

  private start(connection: Redis, processor: DeliveryProcessor): void {
    if (this.closing) return;
    this.errors.clear();
    this.worker = new Worker<DeliveryBatchJob, number>(
      DELIVERY_QUEUE_NAME,
      (job) => this.track(processor.take(job.data.ids)),
      {
        connection,
        prefix: deliveryQueuePrefix(this.options.queuePrefix, this.installationId),
        concurrency: WORKER_JOB_CONCURRENCY,
        lockDuration: this.options.webhooks.timeoutMs * 2 + 30_000,
        removeOnComplete: { count: 0 },
        removeOnFail: { count: 1000 },
      },
    );
    connection.on('ready', () => this.errors.clear());
    this.worker.on('error', (error) => this.errors.add(error.message));
    this.worker.on('failed', (_job, error) =>
      this.errors.add(`a batch failed (the sweeper retries it): ${error.message}`),
    );
  }

  private track(batch: Promise<number>): Promise<number> {
    this.active.add(batch);
    const forget = (): void => void this.active.delete(batch);
    batch.then(forget, forget);
    return batch;
  }

  /**
   * Waits for the batches in flight so that their outcomes reach the host's database, before any
   * module's onApplicationShutdown closes it; never waits for Redis, whose graceful close can hang
   * once Redis is gone, so the close is forced (a batch left active runs again, finding nothing).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    const { worker, processor } = this;
    if (!worker || !processor) return;
    await worker.pause(true);
    processor.stop();
    if (await this.settle(processor))
      await new Promise((resolve) => setTimeout(resolve, COMPLETION_WRITE_MS));
    await worker.close(true);
    // A batch BullMQ handed over while pausing.
    await this.settle(processor);
  }

  onApplicationShutdown(): void {
    this.connection?.disconnect();
  }

  /** Waits until no batch is being claimed or sent; answers whether one was being claimed. */
  private async settle(processor: DeliveryProcessor): Promise<boolean> {
    const busy = this.active.size > 0;
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
    await processor.drain();
    return busy;
  }
}
