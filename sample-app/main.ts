import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { serveApiDocs } from './api-docs/serve-api-docs.js';
import { AppModule } from './app.module.js';
import { loadDemoConfig } from './demo-config.js';

async function bootstrap(): Promise<void> {
  const config = loadDemoConfig();
  // rawBody: the demo receiver verifies signatures over the exact bytes it was sent.
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { rawBody: true });
  app.enableShutdownHooks();
  serveApiDocs(app);
  await app.listen(config.port, config.host);
  const base = new URL(config.receiverUrl).origin;
  const logger = new Logger('Demo');
  logger.log(`Developers page: ${base}/developers`);
  logger.log(`API:             ${base}/v1/ping (Authorization: Bearer iv_test_...)`);
  logger.log(`API reference:   ${base}/docs (OpenAPI document: ${base}/openapi.json)`);
  logger.log(`Demo receiver:   ${config.receiverUrl}`);
  logger.log(`Database:        ${config.databaseFile}`);
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
