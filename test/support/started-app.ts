import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ApiKeysService, SCOPES } from '../../lib/index.js';

/**
 * The DataSources a spec's hosts open, through `factory` (TypeOrmModule's `dataSourceFactory`), so
 * that `closeAll` closes them even when a boot failed half-way and its app never closed them.
 */
export class OpenedDataSources {
  private readonly opened: Promise<DataSource>[] = [];

  readonly factory = async (options?: DataSourceOptions): Promise<DataSource> => {
    const initialized = new DataSource(options!).initialize();
    this.opened.push(initialized);
    return initialized;
  };

  async closeAll(): Promise<void> {
    const settled = await Promise.allSettled(this.opened.splice(0));
    for (const result of settled) {
      if (result.status === 'fulfilled' && result.value.isInitialized) await result.value.destroy();
    }
  }
}

/** Compiles and starts a host of `imports`; one whose start fails is closed before the failure is thrown. */
export async function startApp(imports: (DynamicModule | Type<unknown>)[]): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

/** A test-mode key of `accountId` with every scope, made through the app's ApiKeysService. */
export async function keyWithEveryScope(app: INestApplication, accountId: string): Promise<string> {
  const { key } = await app.get(ApiKeysService).create({
    accountId,
    name: 'every scope',
    mode: 'test',
    scopes: [...SCOPES],
    creatorScopes: [...SCOPES],
  });
  return key;
}
