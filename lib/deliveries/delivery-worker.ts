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
 * How long shutdown still waits for BullMQ once our own batches are done. It only needs a few
 * Redis round trips then; longer means Redis is gone, and BullMQ would wait for it without end.
 */
const BULLMQ_CLOSE_GRACE_MS = 2000;

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
  private closing = false;
  /** The batches this process is sending now. */
  private readonly active = new Set<Promise<number>>();

  constructor(
    private readonly processor: DeliveryProcessor,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.worker) return;
    const connection = createRedisConnection(this.options.redis, 'worker');
    connection.on('error', () => undefined);
    this.connection = connection;
    // BullMQ waits without end for a Redis it has never reached, and its close() waits with it: a
    // host started while Redis is down could then never stop. So the worker is created once Redis
    // first answers; until then the database holds every delivery and the sweeper queues them.
    if (connection.status === 'ready') this.start(connection);
    else connection.once('ready', () => this.start(connection));
  }

  private start(connection: Redis): void {
    if (this.closing) return;
    this.worker = new Worker<DeliveryBatchJob, number>(
      DELIVERY_QUEUE_NAME,
      (job) => this.track(this.processor.process(job.data.ids)),
      {
        connection,
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

  private track(batch: Promise<number>): Promise<number> {
    this.active.add(batch);
    const forget = (): void => void this.active.delete(batch);
    batch.then(forget, forget);
    return batch;
  }

  /**
   * Waits for the batches in flight, so that their sends are recorded, then for BullMQ to close,
   * but not for a Redis that went away: a batch left active in Redis becomes stalled and runs
   * again, finding nothing to claim.
   */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (worker) {
      const closed = worker.close().then(
        () => true,
        () => true,
      );
      const ownWorkDone = async (): Promise<boolean> => {
        while (this.active.size > 0) await Promise.allSettled([...this.active]);
        await new Promise((resolve) => setTimeout(resolve, BULLMQ_CLOSE_GRACE_MS));
        return false;
      };
      if (!(await Promise.race([closed, ownWorkDone()]))) {
        this.logger.warn(
          'Delivery worker closed without Redis: its active batches will be stalled and rerun.',
        );
      }
    }
    this.connection?.disconnect();
  }
}
