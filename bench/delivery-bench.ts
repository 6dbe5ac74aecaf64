import { randomBytes } from 'node:crypto';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { EventPublisher, InterviewApiModule, WebhookEndpointEntity } from '../lib/index.js';
import { CountingLogger } from './counting-logger.js';

const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
const REDIS = { host: '127.0.0.1', port: 6379 };

export interface DeliveryRun {
  deliveries: number;
  seconds: number;
  perSecond: number;
  sqlPerDelivery: number;
  redisPerDelivery: number;
  /** SQL statements of the publishes alone, per event. */
  publishSqlPerEvent: number;
  /** Time until the last publish returned. */
  publishSeconds: number;
}

async function redisCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let total = 0;
  for (const match of stats.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  return total;
}

async function postgres(sql: string): Promise<void> {
  const client = new pg.Client(PG);
  await client.connect();
  await client.query(sql);
  await client.end();
}

/**
 * (a)/(b): `events` events to `endpoints` endpoints, published by `publishers` concurrent callers,
 * timed from the first publish to the last delivery recorded succeeded.
 */
export async function deliveryRun(
  receiverUrl: string,
  events: number,
  endpoints: number,
  publishers: number,
): Promise<DeliveryRun> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  await postgres(`CREATE SCHEMA ${schema}`);
  const logger = new CountingLogger();

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        ...PG,
        username: PG.user,
        schema,
        synchronize: true,
        autoLoadEntities: true,
        logging: ['query'],
        logger,
        extra: { max: 20, options: `-c search_path=${schema}` },
      }),
      InterviewApiModule.forRoot({
        keyPrefix: 'iv',
        cursorSecret: 'bench-cursor-secret-0123456789abcdef',
        redis: REDIS,
        queuePrefix: schema,
        webhooks: { allowInsecureUrls: true, concurrency: 50 },
      }),
    ],
  })
  class BenchModule {}

  const app: INestApplication = await NestFactory.create(BenchModule, { logger: ['error', 'warn'] });
  await app.init();
  const dataSource = app.get(DataSource);
  const publisher = app.get(EventPublisher);
  const now = new Date();
  await dataSource.getRepository(WebhookEndpointEntity).insert(
    Array.from({ length: endpoints }, (_, i) => ({
      id: `whk_bench${String(i).padStart(6, '0')}`,
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

  const redis = new Redis(REDIS);
  const poll = new pg.Client(PG);
  await poll.connect();
  const expected = events * endpoints;
  const redisBefore = await redisCalls(redis);
  logger.reset();

  const started = performance.now();
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
  const publishSeconds = (performance.now() - started) / 1000;
  for (;;) {
    const { rows } = await poll.query<{ count: string }>(
      `SELECT COUNT(*) AS count FROM ${schema}.interview_webhook_deliveries WHERE status = 'succeeded'`,
    );
    if (Number(rows[0].count) >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const seconds = (performance.now() - started) / 1000;
  const redisAfter = await redisCalls(redis);

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
    sqlPerDelivery: logger.engineStatements / expected,
    redisPerDelivery: (redisAfter - redisBefore) / expected,
    publishSqlPerEvent: logger.publisherStatements / events,
    publishSeconds,
  };
}
