import { type INestApplication, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { interviewApiMigrations, InterviewApiModule } from '../lib/index.js';
import type { CountingLogger } from './counting-logger.js';

export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
export const REDIS = { host: '127.0.0.1', port: 6379 };
export const CURSOR_SECRET = 'bench-cursor-secret-0123456789abcdef';

/** What a host serving API requests adds: routes of its own, and a rate high enough for the load. */
export interface HostExtras {
  controllers: Type[];
  requestsPerSecond: number;
}

/** A host app with the module on PostgreSQL schema `schema`, counting its SQL statements. */
export async function bootBenchHost(
  schema: string,
  role: { worker: boolean; createsSchema: boolean },
  logger: CountingLogger,
  extras?: HostExtras,
): Promise<INestApplication> {
  const { worker, createsSchema } = role;
  const rate = extras?.requestsPerSecond;
  @Module({
    controllers: extras?.controllers ?? [],
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        host: PG.host,
        port: PG.port,
        username: PG.user,
        database: PG.database,
        schema,
        // The schema a production host has: the module's migrations, not synchronize.
        migrations: interviewApiMigrations('postgres'),
        migrationsRun: createsSchema,
        autoLoadEntities: true,
        logging: ['query'],
        logger,
        // Named after the schema, so that the benchmark can find this run's backends and their CPU.
        extra: { max: 20, application_name: schema, options: `-c search_path=${schema}` },
      }),
      InterviewApiModule.forRoot({
        keyPrefix: 'iv',
        cursorSecret: CURSOR_SECRET,
        redis: REDIS,
        queuePrefix: schema,
        worker,
        webhooks: { allowInsecureUrls: true, concurrency: 50 },
        // The limiter stays on (its Redis round trip is part of every request), above the load.
        ...(rate === undefined ? {} : { rateLimit: { live: rate, test: rate } }),
      }),
    ],
  })
  class BenchModule {}

  const app = await NestFactory.create(BenchModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.init();
  return app;
}
