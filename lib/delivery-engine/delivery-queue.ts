import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { INSTALLATION_ID } from '../installation/installation-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { createRedisConnection } from '../redis/redis-connection.js';
import { StallGuard } from '../redis/stall-guard.js';
import { QUEUE_REDIS_ANSWER_MS } from '../interview-api.tuning.js';

export const DELIVERY_QUEUE_NAME = 'webhook-deliveries';

/**
 * The prefix of the queue's keys in Redis: queuePrefix, then the installation's id, so that hosts on
 * different databases never share a queue (a worker would take the other's jobs, find nothing of
 * them in its own database to claim, and drop them).
 */
export function deliveryQueuePrefix(queuePrefix: string, installationId: string): string {
  return `${queuePrefix}:${installationId}`;
}

/** A job carries a batch of delivery ids; the database holds everything else. */
export interface DeliveryBatchJob {
  ids: string[];
}

export interface DeliveryBatch {
  ids: string[];
  delayMs: number;
}

/** The producer side of the BullMQ queue. */
@Injectable()
export class DeliveryQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private readonly connection: Redis;
  readonly queue: Queue<DeliveryBatchJob>;
  private readonly sweepTurnKey: string;
  private readonly stallGuard = new StallGuard();
  /** Batches refused (left to the sweeper) since an enqueue last went through. */
  private refusedBatches = 0;
  /**
   * What the connection last failed with while not ready (refused, a wrong password): an enqueue
   * refused then says why, where BullMQ's own error says only that Redis did not answer.
   */
  private connectionError: string | null = null;

  constructor(
    @Inject(INTERVIEW_API_OPTIONS) options: ResolvedOptions,
    @Inject(INSTALLATION_ID) installationId: string,
  ) {
    const prefix = deliveryQueuePrefix(options.queuePrefix, installationId);
    // The installation's own: another's sweeper would otherwise take the turns for both.
    this.sweepTurnKey = `${prefix}:${DELIVERY_QUEUE_NAME}:sweep-turn`;
    this.connection = createRedisConnection(options.redis, 'producer');
    this.connection.on('error', (error: Error) => (this.connectionError = error.message));
    this.connection.on('ready', () => (this.connectionError = null));
    this.queue = new Queue<DeliveryBatchJob>(DELIVERY_QUEUE_NAME, {
      connection: this.connection,
      prefix,
      streams: { events: { maxLen: 100 } },
      defaultJobOptions: { removeOnComplete: true, removeOnFail: { count: 1000 }, attempts: 1 },
    });
    this.queue.on('error', () => undefined);
  }

  /**
   * Adds the batches; a refusal is logged and answers false, leaving them to the sweeper (the rows are
   * durable). Never waits past QUEUE_REDIS_ANSWER_MS, even for a Redis never reached, and sends nothing
   * while an earlier command is unanswered, so neither shutdown nor memory depends on Redis answering.
   */
  async add(batches: DeliveryBatch[]): Promise<boolean> {
    if (batches.length === 0) return true;
    if (this.stallGuard.stalled) return this.leave(batches, 'Redis has stopped answering');
    const add = (): Promise<unknown> =>
      this.queue.addBulk(
        batches.map((batch) => ({
          name: 'send',
          data: { ids: batch.ids },
          opts: { delay: Math.max(0, batch.delayMs) },
        })),
      );
    // A late success only duplicates what the sweeper sends, and a duplicate job finds nothing to
    // claim.
    try {
      await this.stallGuard.answerWithin(add, QUEUE_REDIS_ANSWER_MS);
    } catch (error) {
      return this.leave(batches, `Could not enqueue deliveries: ${String(error)}`);
    }
    if (this.refusedBatches > 0) {
      // The sweeper's own pages count too: a long outage refuses the same overdue deliveries again.
      this.logger.log(
        `Deliveries are enqueued again (${this.refusedBatches} batches were refused meanwhile; the sweeper queues what they held)`,
      );
      this.refusedBatches = 0;
    }
    return true;
  }

  /**
   * Leaves the batches to the sweeper, warning once per outage rather than once per flush (every
   * ENQUEUE_WINDOW_MS under load).
   */
  private leave(batches: DeliveryBatch[], why: string): false {
    if (this.refusedBatches === 0) {
      const cause = this.connectionError === null ? '' : ` (Redis: ${this.connectionError})`;
      this.logger.warn(
        `${why}${cause}. Deliveries are left to the sweeper until an enqueue goes through again.`,
      );
    }
    this.refusedBatches += batches.length;
    return false;
  }

  /**
   * Whether this process may sweep now: the first to ask within `ms` may, any other may not (one
   * key set if absent, expiring after `ms`). Without Redis every process may: a sweep then queues
   * nothing anyway, and the first one after Redis is back is the one that counts.
   */
  async takeSweepTurn(ms: number): Promise<boolean> {
    try {
      // Once the queue's connection is ready: it refuses commands until then rather than queue them.
      const take = (): Promise<string | null> =>
        this.queue
          .waitUntilReady()
          .then(() => this.connection.set(this.sweepTurnKey, String(process.pid), 'PX', ms, 'NX'));
      return (await this.stallGuard.answerWithin(take, QUEUE_REDIS_ANSWER_MS)) === 'OK';
    } catch {
      return true;
    }
  }

  /** How many jobs wait to be taken now; null when Redis does not answer in time. */
  async waitingJobs(): Promise<number | null> {
    try {
      return await this.stallGuard.answerWithin(() => this.queue.getWaitingCount(), QUEUE_REDIS_ANSWER_MS);
    } catch {
      return null;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.refusedBatches > 0) {
      this.logger.warn(
        `Stopping while Redis refuses deliveries (${this.refusedBatches} batches refused): the sweeper of a worker queues them.`,
      );
    }
    await this.queue.close().catch(() => undefined);
    this.connection.disconnect();
  }
}
