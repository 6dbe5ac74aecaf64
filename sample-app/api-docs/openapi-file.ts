import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { sampleApiDocument } from './api-document.js';

/**
 * The text of `openapi.json`: the sample app's document as 2-space JSON and a final newline. The
 * app is created but never started, on a SQLite database of its own that is removed afterwards.
 */
export async function buildSampleOpenApiFile(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'interview-openapi-'));
  // The sample's configuration is read when its module is loaded: the database is set first.
  const demoDb = process.env.DEMO_DB;
  process.env.DEMO_DB = join(dir, 'openapi.sqlite');
  try {
    const { AppModule } = await import('../app.module.js');
    if (demoDb === undefined) delete process.env.DEMO_DB;
    else process.env.DEMO_DB = demoDb;
    const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    try {
      return `${JSON.stringify(sampleApiDocument(app), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
