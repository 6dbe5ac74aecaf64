import {
  Controller,
  type DynamicModule,
  Get,
  type INestApplication,
  Module,
  NotFoundException,
  Param,
  type Type,
  type VersioningOptions,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import {
  ApiKeysService,
  InterviewApiModule,
  type InterviewApiModuleOptions,
  type ResourceDefinition,
  type Scope,
  SCOPES,
} from '../../lib/index.js';
import { Clock } from '../../lib/clock/clock.js';
import { TestDatabase } from './database.js';
import { SessionEntity } from './session.entity.js';
import { deleteQueueKeys } from './webhooks.js';

/** An ordinary host route next to the module: it must behave exactly as if the module were not there. */
@Controller('host')
class HostController {
  @Get('hello')
  hello(): { hello: string } {
    return { hello: 'world' };
  }

  @Get('things/:id')
  thing(@Param('id') id: string): never {
    throw new NotFoundException(`no thing ${id}`);
  }
}

/** A host route under /v1 that the module does not own. */
@Controller('v1/host_status')
class HostV1Controller {
  @Get()
  status(): { ok: boolean } {
    return { ok: true };
  }
}

export const CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef';

export interface TestHost {
  app: INestApplication;
  db: TestDatabase;
  keys: ApiKeysService;
  createKey(accountId: string, mode: 'test' | 'live', scopes?: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export interface TestHostOptions {
  db?: TestDatabase;
  /** Keep the database when closing (a second instance shares it). */
  keepDatabase?: boolean;
  module?: Partial<InterviewApiModuleOptions>;
  /** Extra host controllers, e.g. a host's own @ApiV1Controller. */
  controllers?: Type<unknown>[];
  /** Extra host entities, e.g. those of `resources`. */
  entities?: Type<unknown>[];
  /** The host resources, instead of the sessions. */
  resources?: ResourceDefinition[];
  /** The module's time, for a host that should see the future (a claim lease as expired, say). */
  clock?: Clock;
  /** The host's `app.setGlobalPrefix`, set before init as a host sets it. */
  globalPrefix?: string;
  /** The host DataSource's query cache (TypeORM's `cache` option). */
  cache?: DataSourceOptions['cache'];
  /** PostgreSQL's default isolation for the host's connections (READ COMMITTED unless given). */
  isolation?: 'repeatable read';
  /** PostgreSQL's TimeZone for the host's connections (the server's unless given). */
  timeZone?: string;
  /** The host's `app.enableVersioning`, set before init as a host sets it. */
  versioning?: VersioningOptions;
  /** The module listed before TypeORM in the imports: Nest then closes the DataSource first at shutdown. */
  moduleBeforeTypeOrm?: boolean;
  /** The host's app-level set-up before init (`app.useGlobalPipes(...)`, say), as a host does it. */
  configure?: (app: INestApplication) => void;
}

/** Boots a small host app (its own TypeORM DataSource, a session entity, one ordinary route) with the module. */
export async function createTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const db = options.db ?? (await TestDatabase.create());

  @Module({
    imports: inHostOrder(options, [
      TypeOrmModule.forRoot({
        ...db.options({ isolation: options.isolation, timeZone: options.timeZone }),
        autoLoadEntities: true,
        cache: options.cache,
      }),
      TypeOrmModule.forFeature([SessionEntity, ...(options.entities ?? [])]),
      InterviewApiModule.forRoot({
        keyPrefix: 'iv',
        cursorSecret: CURSOR_SECRET,
        redis: { host: '127.0.0.1', port: 6379 },
        queuePrefix: db.name,
        eventTypes: ['session.completed'],
        resources: options.resources ?? [
          {
            path: 'sessions',
            entity: SessionEntity,
            object: 'session',
            scope: 'results:read',
            filters: ['status'],
          },
        ],
        // Tests call faster than a test key may; the rate-limit tests turn the limits on.
        rateLimit: false,
        ...options.module,
        // A test's webhooks options adjust the test defaults (TEST_WEBHOOKS) rather than replace them.
        webhooks: {
          allowInsecureUrls: true,
          retryScheduleMs: [300, 600],
          timeoutMs: 10_000,
          sweepIntervalMs: 1000,
          ...options.module?.webhooks,
        },
      }),
    ]),
    controllers: [HostController, HostV1Controller, ...(options.controllers ?? [])],
  })
  class HostModule {}

  const testingModule = Test.createTestingModule({ imports: [HostModule] });
  if (options.clock) testingModule.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await testingModule.compile();
  const app = moduleRef.createNestApplication({ logger: false });
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  if (options.versioning) app.enableVersioning(options.versioning);
  options.configure?.(app);
  await app.init();
  const keys = app.get(ApiKeysService);
  return {
    app,
    db,
    keys,
    async createKey(accountId, mode, scopes = [...SCOPES]) {
      const created = await keys.create({
        accountId,
        name: 'test key',
        mode,
        scopes,
        creatorScopes: [...SCOPES],
      });
      return created.key;
    },
    async close() {
      await app.close();
      if (options.keepDatabase) return;
      await db.drop();
      // The queue is named after the database: its keys would otherwise pile up in the shared Redis.
      await deleteQueueKeys(db.name);
    },
  };
}

/** The host's imports, the module's moved first when the host lists it before TypeORM. */
function inHostOrder(options: TestHostOptions, imports: DynamicModule[]): DynamicModule[] {
  if (!options.moduleBeforeTypeOrm) return imports;
  const isModule = (entry: DynamicModule): boolean => entry.module === InterviewApiModule;
  return [...imports.filter(isModule), ...imports.filter((entry) => !isModule(entry))];
}

/**
 * The hosts a test file starts, closed after each test whatever happened, in the order they
 * started: hosts that share a database start with keepDatabase, and the last one, which drops it,
 * closes last.
 */
export class OpenHosts {
  private open: TestHost[] = [];

  async start(options: TestHostOptions): Promise<TestHost> {
    const host = await createTestHost(options);
    this.open.push(host);
    return host;
  }

  /** Closes a host before its test ends (it must have kept its database). */
  async closeNow(host: TestHost): Promise<void> {
    await host.close();
    this.open = this.open.filter((open) => open !== host);
  }

  async closeAll(): Promise<void> {
    const closing = this.open;
    this.open = [];
    for (const host of closing) await host.close();
  }
}
