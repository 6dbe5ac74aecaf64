import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import request from 'supertest';
import {
  ApiKeysService,
  InterviewApiModule,
  type InterviewApiModuleOptions,
  type ResourceDefinition,
  interviewApiMigrations,
} from '../lib/index.js';
import { DB_KIND, PG, TestDatabase } from './support/database.js';
import { REDIS } from './support/webhooks.js';
import { SCORE_CARDS, ScoreCardEntity } from './support/score-card.entity.js';
import { SessionEntity } from './support/session.entity.js';
import { keyWithEveryScope, OpenedDataSources, startApp } from './support/started-app.js';

const VALID: InterviewApiModuleOptions = {
  keyPrefix: 'iv',
  cursorSecret: 'module-options-cursor-secret-0123456789',
  redis: { host: '127.0.0.1', port: 6379 },
};
const SESSIONS: ResourceDefinition<SessionEntity> = {
  path: 'sessions',
  entity: SessionEntity,
  object: 'session',
  scope: 'results:read',
  filters: ['status'],
};

const CENTURY_MS = 100 * 365 * 24 * 3600 * 1000;

/** Options as a host might pass them by mistake: the type system is not there at run time. */
const loose = (options: Record<string, unknown>): InterviewApiModuleOptions =>
  options as unknown as InterviewApiModuleOptions;

@Module({
  providers: [{ provide: 'CONFIG', useValue: { prefix: 'acme', secret: 'c'.repeat(40) } }],
  exports: ['CONFIG'],
})
class ConfigModule {}

describe('InterviewApiModule options are checked at start-up', () => {
  let db: TestDatabase;
  const dataSources = new OpenedDataSources();

  beforeAll(async () => {
    db = await TestDatabase.create();
  });
  afterAll(async () => {
    await dataSources.closeAll();
    await db.drop();
  });

  /** Compiles and starts a host with the module; a sync throw in forRoot counts as a failed boot too. */
  async function boot(
    interviewApi: () => DynamicModule,
    /** The DataSource's `extra` (the pool's options) in place of the test database's. */
    dataSource: { extra?: Record<string, unknown> } = {},
  ): Promise<INestApplication> {
    return startApp([
      TypeOrmModule.forRootAsync({
        useFactory: () => ({ ...db.options(), ...dataSource, autoLoadEntities: true }),
        dataSourceFactory: dataSources.factory,
      }),
      TypeOrmModule.forFeature([SessionEntity, ScoreCardEntity]),
      interviewApi(),
    ]);
  }

  async function expectPing(app: INestApplication, prefix: string): Promise<void> {
    const key = await keyWithEveryScope(app, 'acct_opts');
    expect(key.startsWith(`${prefix}_test_`)).toBe(true);
    const res = await request(app.getHttpServer())
      .get('/v1/ping')
      .set('Authorization', `Bearer ${key}`)
      .expect(200);
    expect(res.body).toEqual({ object: 'ping', livemode: false });
  }

  const failsNaming = (option: string) =>
    expect.objectContaining({
      name: 'InvalidModuleOptionsError',
      message: expect.stringContaining(`option "${option}"`),
    });

  it('boots with valid options (the control for every failure below)', async () => {
    const app = await boot(() => InterviewApiModule.forRoot(VALID));
    await expectPing(app, 'iv');
    await app.close();
  });

  describe('forRoot refuses to boot', () => {
    it.each<[string, string, Record<string, unknown>]>([
      ['a missing cursorSecret', 'cursorSecret', { cursorSecret: undefined }],
      ['an empty cursorSecret', 'cursorSecret', { cursorSecret: '' }],
      ['a short cursorSecret', 'cursorSecret', { cursorSecret: 'too-short' }],
      ['a cursorSecret one character short', 'cursorSecret', { cursorSecret: 'x'.repeat(31) }],
      ['a cursorSecret that is not a string', 'cursorSecret', { cursorSecret: 1234 }],
      ['keyPrefix "IV_"', 'keyPrefix', { keyPrefix: 'IV_' }],
      ['keyPrefix "iv_"', 'keyPrefix', { keyPrefix: 'iv_' }],
      ['an empty keyPrefix', 'keyPrefix', { keyPrefix: '' }],
      ['a one-letter keyPrefix', 'keyPrefix', { keyPrefix: 'i' }],
      ['a keyPrefix starting with a digit', 'keyPrefix', { keyPrefix: '1v' }],
      ['a missing keyPrefix', 'keyPrefix', { keyPrefix: undefined }],
      ['an unknown top-level option', 'cursorSecrets', { cursorSecrets: 'x'.repeat(40) }],
      ['an empty dataSource', 'dataSource', { dataSource: '' }],
      ['a dataSource that is not a name', 'dataSource', { dataSource: 42 }],
      ['an unknown webhooks option', 'webhooks.timeout', { webhooks: { timeout: 5_000 } }],
      ['a bad webhooks.timeoutMs', 'webhooks.timeoutMs', { webhooks: { timeoutMs: -1 } }],
      // Node would fire either timer after 1 ms: every attempt timed out, a sweep every millisecond.
      [
        'a webhooks.timeoutMs past the longest timer',
        'webhooks.timeoutMs',
        { webhooks: { timeoutMs: 2 ** 31 } },
      ],
      [
        'a webhooks.sweepIntervalMs past the longest timer',
        'webhooks.sweepIntervalMs',
        { webhooks: { sweepIntervalMs: 30 * 24 * 3600 * 1000 } },
      ],
      [
        'a webhooks.retryScheduleMs delay beyond a Date',
        'webhooks.retryScheduleMs',
        { webhooks: { retryScheduleMs: [5_000, 9e15] } },
      ],
      ['redis options with a keyPrefix', 'redis.keyPrefix', { redis: { ...REDIS, keyPrefix: 'app:' } }],
      [
        'an ioredis instance with a keyPrefix',
        'redis.keyPrefix',
        { redis: new Redis({ ...REDIS, keyPrefix: 'app:', lazyConnect: true }) },
      ],
      ['an ioredis Cluster', 'redis', { redis: new Cluster([REDIS], { lazyConnect: true }) }],
      ['a zero webhooks.maxEndpoints', 'webhooks.maxEndpoints', { webhooks: { maxEndpoints: 0 } }],
      ['a maxEventBytes that is not an integer', 'maxEventBytes', { maxEventBytes: 1.5 }],
      ['a maxEventBytes over 1 MiB', 'maxEventBytes', { maxEventBytes: 1024 * 1024 + 1 }],
      ['a bad apiVersion', 'apiVersion', { apiVersion: 'latest' }],
      ['an apiVersion that is no calendar day', 'apiVersion', { apiVersion: '2026-02-30' }],
      ['a bad eventTypes entry', 'eventTypes', { eventTypes: ['Session Completed'] }],
      ['missing redis options', 'redis', { redis: undefined }],
      ['a rateLimit that is not an object', 'rateLimit', { rateLimit: 100 }],
      ['an unknown rateLimit option', 'rateLimit.perSecond', { rateLimit: { perSecond: 5 } }],
      ['a bad rateLimit.test', 'rateLimit.test', { rateLimit: { test: 0 } }],
      ['a bad rateLimit.live', 'rateLimit.live', { rateLimit: { live: 2.5 } }],
      [
        'a failedAuthentications that is not an object',
        'rateLimit.failedAuthentications',
        { rateLimit: { failedAuthentications: true } },
      ],
      [
        'an unknown failedAuthentications option',
        'rateLimit.failedAuthentications.perMinute',
        { rateLimit: { failedAuthentications: { perMinute: 5 } } },
      ],
      [
        'a bad failedAuthentications.limit',
        'rateLimit.failedAuthentications.limit',
        { rateLimit: { failedAuthentications: { limit: 0 } } },
      ],
      [
        'a failedAuthentications.windowMs that is not an integer',
        'rateLimit.failedAuthentications.windowMs',
        { rateLimit: { failedAuthentications: { windowMs: 1.5 } } },
      ],
      ['a zero eventRetentionMs', 'eventRetentionMs', { eventRetentionMs: 0 }],
      ['an eventRetentionMs over 100 years', 'eventRetentionMs', { eventRetentionMs: CENTURY_MS + 1 }],
      ['an eventRetentionMs of 30,000 years', 'eventRetentionMs', { eventRetentionMs: 300 * CENTURY_MS }],
    ])('with %s, naming the option', async (_name, option, change) => {
      await expect(boot(() => InterviewApiModule.forRoot(loose({ ...VALID, ...change })))).rejects.toEqual(
        failsNaming(option),
      );
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['webhooks.allowInsecureUrl', { webhooks: { allowInsecureUrl: true } }, 'webhooks.allowInsecureUrls'],
      ['webhooks.allowinsecureurls', { webhooks: { allowinsecureurls: true } }, 'webhooks.allowInsecureUrls'],
      ['cursorSecrets', { cursorSecrets: 'x'.repeat(40) }, 'cursorSecret'],
      ['datasource', { datasource: 'interview' }, 'dataSource'],
      ['webhooks.timeout', { webhooks: { timeout: 5_000 } }, 'webhooks.timeoutMs'],
      [
        'rateLimit.failedAuthentications.WINDOWMS',
        { rateLimit: { failedAuthentications: { WINDOWMS: 1_000 } } },
        'rateLimit.failedAuthentications.windowMs',
      ],
    ])('with the unknown option %s, naming the known one it is close to', async (unknown, change, known) => {
      await expect(boot(() => InterviewApiModule.forRoot(loose({ ...VALID, ...change })))).rejects.toEqual(
        expect.objectContaining({
          name: 'InvalidModuleOptionsError',
          message: `InterviewApiModule option "${unknown}" is not a known option. Did you mean "${known}"?`,
        }),
      );
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['resources[0].filter', { filter: ['status'] }, 'resources[0].filters'],
      [
        'resources[0].columns.createdat',
        { columns: { createdat: 'createdAt' } },
        'resources[0].columns.createdAt',
      ],
    ])('with a resource field %s, naming the known one it is close to', async (unknown, change, known) => {
      await expect(
        boot(() =>
          InterviewApiModule.forRoot({ ...VALID, resources: [loose({ ...SESSIONS, ...change })] as never }),
        ),
      ).rejects.toEqual(
        expect.objectContaining({
          message: `InterviewApiModule option "${unknown}" is not a known option. Did you mean "${known}"?`,
        }),
      );
    });

    it('with an unknown option close to no known one, suggesting none', async () => {
      await expect(
        boot(() => InterviewApiModule.forRoot(loose({ ...VALID, rateLimit: { perSecond: 5 } }))),
      ).rejects.toEqual(
        expect.objectContaining({
          message: 'InterviewApiModule option "rateLimit.perSecond" is not a known option.',
        }),
      );
    });

    it('with a resource of an unknown scope, naming it', async () => {
      await expect(
        boot(() =>
          InterviewApiModule.forRoot({
            ...VALID,
            resources: [{ ...SESSIONS, scope: 'results:write' as never }],
          }),
        ),
      ).rejects.toEqual(failsNaming('resources[0].scope'));
    });

    it.each<[string, string, Record<string, unknown>]>([
      ['a path the module serves', 'resources[0].path', { path: 'events' }],
      ['filters that are not a list of names', 'resources[0].filters', { filters: 'status' }],
      ['an unknown column to rename', 'resources[0].columns.publicId', { columns: { publicId: 'id' } }],
      ['a toJSON that is not a function', 'resources[0].toJSON', { toJSON: 'json' }],
      ['a filter naming no entity property', 'resources (path "sessions")', { filters: ['nope'] }],
      [
        'a column naming no entity property',
        'resources (path "sessions")',
        { columns: { createdAt: 'madeAt' } },
      ],
      ['a filter on a JSON column', 'resources (path "score_cards")', { ...SCORE_CARDS, filters: ['notes'] }],
      [
        'an id column longer than a cursor carries',
        'resources (path "score_cards")',
        { ...SCORE_CARDS, columns: { id: 'externalRef' } },
      ],
      // No filter reads a time: PostgreSQL would fail the statement on `starts_at=abc`.
      [
        'a filter on a time column',
        'resources (path "score_cards")',
        { ...SCORE_CARDS, filters: ['startsAt'] },
      ],
    ])('with a resource with %s, naming it', async (_name, option, change) => {
      await expect(
        boot(() =>
          InterviewApiModule.forRoot({ ...VALID, resources: [loose({ ...SESSIONS, ...change })] as never }),
        ),
      ).rejects.toEqual(failsNaming(option));
    });

    it('accepts an eventRetentionMs of 100 years', async () => {
      const app = await boot(() => InterviewApiModule.forRoot({ ...VALID, eventRetentionMs: CENTURY_MS }));
      await expectPing(app, 'iv');
      await app.close();
    });

    it('accepts the shortest allowed cursorSecret and keyPrefix', async () => {
      const app = await boot(() =>
        InterviewApiModule.forRoot({ ...VALID, keyPrefix: 'ab', cursorSecret: 'x'.repeat(32) }),
      );
      await expectPing(app, 'ab');
      await app.close();
    });
  });

  // The module's own statements find its tables through the search_path, TypeORM's through the
  // DataSource's schema: a DataSource whose schema is not first on the search_path is refused.
  (DB_KIND === 'postgres' ? it : it.skip)(
    "refuses a DataSource schema that is not its connections' current one, saying how to set it",
    async () => {
      await expect(boot(() => InterviewApiModule.forRoot(VALID), { extra: { max: 2 } })).rejects.toThrow(
        `the DataSource's schema "${db.name}" is not its connections' current schema ("public"): put it first on their search_path`,
      );
    },
  );

  /** Runs `sql` on the suite's PostgreSQL, outside the host's DataSource (a failed start closed it). */
  async function postgres<Row extends object>(sql: string, values: unknown[] = []): Promise<Row[]> {
    const client = new pg.Client(PG);
    await client.connect();
    try {
      return (await client.query<Row>(sql, values)).rows;
    } finally {
      await client.end();
    }
  }

  const moduleTablesIn = async (schema: string): Promise<string[]> =>
    (
      await postgres<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'interview\\_%'`,
        [schema],
      )
    )
      .map((row) => row.name)
      .sort();

  // The host's migrations run before the module starts. Those of the module name its tables without
  // a schema: they made them in public while TypeORM recorded them as run in the host's schema, so
  // that once the host set its search_path no start could ever create them there.
  (DB_KIND === 'postgres' ? it : it.skip)(
    'refuses a host migrating at start in a DataSource schema not first on the search_path before the migrations create anything, and boots once it is',
    async () => {
      const own = await TestDatabase.create();
      const inPublic = await moduleTablesIn('public');
      const host = (extra: Record<string, unknown>): Promise<INestApplication> =>
        startApp([
          TypeOrmModule.forRootAsync({
            useFactory: () => ({
              ...own.options({ synchronize: false }),
              extra,
              migrations: interviewApiMigrations('postgres'),
              migrationsRun: true,
              toRetry: () => false,
              autoLoadEntities: true,
            }),
            dataSourceFactory: dataSources.factory,
          }),
          InterviewApiModule.forRoot(VALID),
        ]);
      try {
        await expect(host({ max: 2 })).rejects.toThrow(
          `the DataSource's schema "${own.name}" is not its connections' current schema ("public"): put it first on their search_path`,
        );
        expect(await moduleTablesIn('public')).toEqual(inPublic);
        expect(await moduleTablesIn(own.name)).toEqual([]);
        expect(await postgres(`SELECT name FROM "${own.name}".migrations`)).toEqual([]);

        const app = await host({ max: 2, options: `-c search_path=${own.name}` });
        await expectPing(app, 'iv');
        await app.close();
      } finally {
        const made = (await moduleTablesIn('public')).filter((table) => !inPublic.includes(table));
        if (made.length > 0) {
          await postgres(`DROP TABLE ${made.map((table) => `public."${table}"`).join(', ')} CASCADE`);
        }
        await own.drop();
      }
    },
  );

  describe('forRootAsync', () => {
    it('takes its options from an injected factory, resources included', async () => {
      const app = await boot(() =>
        InterviewApiModule.forRootAsync({
          imports: [ConfigModule],
          inject: ['CONFIG'],
          useFactory: async (config: { prefix: string; secret: string }) => ({
            ...VALID,
            keyPrefix: config.prefix,
            cursorSecret: config.secret,
          }),
          resources: [SESSIONS],
        }),
      );
      await expectPing(app, 'acme');
      const { key } = await app.get(ApiKeysService).create({
        accountId: 'acct_async',
        name: 'sessions',
        mode: 'live',
        scopes: ['results:read'],
        creatorScopes: ['results:read'],
      });
      const res = await request(app.getHttpServer())
        .get('/v1/sessions')
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
      await app.close();
    });

    it.each<[string, string, Record<string, unknown>]>([
      ['an unknown option', 'retries', { retries: 3 }],
      ['an unknown webhooks option', 'webhooks.secret', { webhooks: { secret: 'x' } }],
      ['a short cursorSecret', 'cursorSecret', { cursorSecret: 'short' }],
      ['a bad keyPrefix', 'keyPrefix', { keyPrefix: 'IV_' }],
      ['resources (they belong to forRootAsync itself)', 'resources', { resources: [SESSIONS] }],
      ['dataSource (it belongs to forRootAsync itself)', 'dataSource', { dataSource: 'default' }],
    ])('refuses to boot when the factory returns %s, naming it', async (_name, option, change) => {
      await expect(
        boot(() =>
          InterviewApiModule.forRootAsync({
            imports: [ConfigModule],
            inject: ['CONFIG'],
            useFactory: () => loose({ ...VALID, ...change }),
          }),
        ),
      ).rejects.toEqual(failsNaming(option));
    });
  });
});
