import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { EventPublisher, WebhookEndpointEntity } from '../lib/index.js';
import { bootBenchHost, PG, REDIS } from './bench-host.js';
import { ask } from './child-process.js';
import { CountingLogger } from './counting-logger.js';
import { CpuMeter } from './process-cpu.js';
import { SilentReceiver } from './silent-receiver.js';

/** Where the worker runs: inside the publishing host, or in a process of its own. */
export type Topology = 'in-process' | 'worker-process';

/** CPU per delivery, in microseconds, by process; null where it could not be read. */
export interface CpuSplit {
  /** The host that publishes (and, in-process, also runs the worker). */
  publisher: number | null;
  /** The worker in a process of its own; null when it runs in the publishing process. */
  worker: number | null;
  /** Every PostgreSQL backend serving the hosts of this run. */
  postgres: number | null;
  receiver: number | null;
  redis: number | null;
}

/**
 * How a run divides: the publishing phase (first publish to the last publish returned) and the
 * rest, when the worker sends what the publishes left it with the machine to itself.
 */
export interface RunPhases {
  publishingSeconds: number;
  /** Deliveries recorded succeeded by the time the last publish returned. */
  deliveredWhilePublishing: number;
  /** The rest's rate, from the last publish returned to the last delivery recorded; null if none was left. */
  perSecondAfterPublishing: number | null;
}

export interface DeliveryRun {
  deliveries: number;
  seconds: number;
  perSecond: number;
  sqlPerDelivery: number;
  redisPerDelivery: number;
  /** SQL statements of the publishes alone, per event. */
  publishSqlPerEvent: number;
  /** The run in two phases: while the publishes are under way, and the backlog left after them. */
  phases: RunPhases;
  cpuPerDelivery: CpuSplit;
}

async function redisCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let total = 0;
  for (const match of stats.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  return total;
}

async function redisPid(redis: Redis): Promise<number[]> {
  const match = /process_id:(\d+)/.exec(await redis.info('server'));
  return match ? [Number(match[1])] : [];
}

async function backendPids(client: pg.Client, applicationName: string): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [applicationName],
  );
  return rows.map((row) => row.pid);
}

async function postgres(sql: string): Promise<void> {
  const client = new pg.Client(PG);
  await client.connect();
  await client.query(sql);
  await client.end();
}

/** Read from the deliveries' record times, on the clock that wrote them, as the run's time is. */
async function runPhases(
  poll: pg.Client,
  schema: string,
  answering: string[],
  started: Date,
  published: Date,
  recorded: Date,
  expected: number,
): Promise<RunPhases> {
  const { rows } = await poll.query<{ delivered: string }>(
    `SELECT COUNT(*) AS delivered FROM ${schema}.interview_webhook_deliveries
     WHERE endpoint_id = ANY($1::text[]) AND status = 'succeeded' AND updated_at <= $2`,
    [answering, published],
  );
  const delivered = Number(rows[0].delivered);
  const afterSeconds = (recorded.getTime() - published.getTime()) / 1000;
  return {
    publishingSeconds: (published.getTime() - started.getTime()) / 1000,
    deliveredWhilePublishing: delivered,
    perSecondAfterPublishing:
      delivered < expected && afterSeconds > 0 ? (expected - delivered) / afterSeconds : null,
  };
}

/** The endpoints that answer; in (d) one more, whose id does not match, never does. */
const ANSWERING = 'whk_bench';
const endpointId = (prefix: string, i: number): string => `${prefix}${String(i).padStart(6, '0')}`;

async function seedEndpoints(
  app: INestApplication,
  receiverUrl: string,
  endpoints: number,
  idPrefix = ANSWERING,
): Promise<void> {
  const now = new Date();
  await app
    .get(DataSource)
    .getRepository(WebhookEndpointEntity)
    .insert(
      Array.from({ length: endpoints }, (_, i) => ({
        id: endpointId(idPrefix, i),
        accountId: 'acct_bench',
        livemode: true,
        url: receiverUrl,
        description: null,
        enabledEvents: ['*'],
        status: 'enabled' as const,
        disabledReason: null,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
}

/**
 * (a)/(b): `events` events to `endpoints` endpoints from `publishers` concurrent callers, timed from
 * the first publish to the last delivery recorded succeeded. (d), with `silentEndpoint`: each event
 * also goes to an endpoint that never answers; timed to the last delivery of those that do.
 */
export async function deliveryRun(
  receiverUrl: string,
  receiverPid: number,
  events: number,
  endpoints: number,
  publishers: number,
  topology: Topology,
  silentEndpoint = false,
): Promise<DeliveryRun> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  await postgres(`CREATE SCHEMA ${schema}`);
  const logger = new CountingLogger();
  const app = await bootBenchHost(schema, { worker: topology === 'in-process', createsSchema: true }, logger);
  await seedEndpoints(app, receiverUrl, endpoints);
  const silent = silentEndpoint ? await SilentReceiver.start() : null;
  if (silent) await seedEndpoints(app, silent.url, 1, 'whk_silent');
  let worker: ChildProcess | null = null;
  if (topology === 'worker-process') {
    worker = fork(new URL('./worker-process.js', import.meta.url), [schema]);
    await ask(worker, {}, 'ready');
    await ask(worker, { type: 'reset' }, 'reset');
  }
  const publisher = app.get(EventPublisher);
  const redis = new Redis(REDIS);
  const poll = new pg.Client(PG);
  await poll.connect();
  const expected = events * endpoints;
  const answering = Array.from({ length: endpoints }, (_, i) => endpointId(ANSWERING, i));
  const redisBefore = await redisCalls(redis);
  logger.reset();
  // Read from /proc around the timed window: the publishing process (this one), the worker's,
  // the database backends of both hosts (named after the schema), the receiver and Redis.
  const groups = {
    publisher: [process.pid],
    worker: worker?.pid === undefined ? [] : [worker.pid],
    receiver: [receiverPid],
    redis: await redisPid(redis),
  };
  const cpu = new CpuMeter();
  cpu.start([...Object.values(groups).flat(), ...(await backendPids(poll, schema))]);

  const started = new Date();
  let published = 0;
  const publish = async (): Promise<void> => {
    while (published < events) {
      const n = published++;
      await publisher.publish({
        accountId: 'acct_bench',
        type: 'result.ready',
        livemode: true,
        data: {
          id: `res_${n}`,
          object: 'result',
          status: 'ready',
          score: 87,
          candidate: { name: 'Ada Lovelace' },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: publishers }, publish));
  const publishedAt = new Date();
  // Every delivery row exists once the publishes have returned: done when none is pending. Polled
  // through the schedule's endpoint index so that polling does not load the database it measures;
  // the time is read from the rows (the last outcome recorded), not from the poll.
  for (;;) {
    const { rows } = await poll.query<{ pending: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${schema}.interview_pending_deliveries WHERE endpoint_id = ANY($1::text[])) AS pending`,
      [answering],
    );
    if (!rows[0].pending) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { rows: last } = await poll.query<{ recorded: Date }>(
    `SELECT MAX(updated_at) AS recorded FROM ${schema}.interview_webhook_deliveries WHERE endpoint_id = ANY($1::text[])`,
    [answering],
  );
  const seconds = (last[0].recorded.getTime() - started.getTime()) / 1000;
  const phases = await runPhases(poll, schema, answering, started, publishedAt, last[0].recorded, expected);
  const perDelivery = (micros: number | null): number | null => (micros === null ? null : micros / expected);
  const cpuPerDelivery: CpuSplit = {
    publisher: perDelivery(cpu.used(groups.publisher)),
    worker: perDelivery(cpu.used(groups.worker)),
    postgres: perDelivery(cpu.used(await backendPids(poll, schema))),
    receiver: perDelivery(cpu.used(groups.receiver)),
    redis: perDelivery(cpu.used(groups.redis)),
  };
  const redisAfter = await redisCalls(redis);
  const { rows: outcome } = await poll.query<{ succeeded: string }>(
    `SELECT COUNT(*) AS succeeded FROM ${schema}.interview_webhook_deliveries WHERE status = 'succeeded'`,
  );
  if (Number(outcome[0].succeeded) !== expected) {
    throw new Error(`${outcome[0].succeeded} of ${expected} deliveries succeeded`);
  }
  // The sends still held open by the silent endpoint end now, not at their deadline.
  await silent?.close();
  const workerStatements = worker ? await ask<number>(worker, { type: 'stop' }, 'statements') : 0;

  await app.close();
  await poll.end();
  const leftovers = await redis.keys(`${schema}:*`);
  if (leftovers.length > 0) await redis.del(...leftovers);
  redis.disconnect();
  await postgres(`DROP SCHEMA ${schema} CASCADE`);
  return {
    deliveries: expected,
    seconds,
    perSecond: expected / seconds,
    sqlPerDelivery: (logger.engineStatements + workerStatements) / expected,
    redisPerDelivery: (redisAfter - redisBefore) / expected,
    publishSqlPerEvent: logger.publisherStatements / events,
    phases,
    cpuPerDelivery,
  };
}
