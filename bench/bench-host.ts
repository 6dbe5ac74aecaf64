import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { interviewApiMigrations, InterviewApiModule } from '../lib/index.js';
import type { CountingLogger } from './counting-logger.js';

export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
export const REDIS = { host: '127.0.0.1', port: 6379 };

/** A host app with the module on PostgreSQL schema `schema`, counting its SQL statements. */
export async function bootBenchHost(
  schema: string,
  role: { worker: boolean; createsSchema: boolean },
  logger: CountingLogger,
): Promise<INestApplication> {
  const { worker, createsSchema } = role;
  @Module({
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
        cursorSecret: 'bench-cursor-secret-0123456789abcdef',
        redis: REDIS,
        queuePrefix: schema,
        worker,
        webhooks: { allowInsecureUrls: true, concurrency: 50 },
      }),
    ],
  })
  class BenchModule {}

  const app = await NestFactory.create(BenchModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.init();
  return app;
}
