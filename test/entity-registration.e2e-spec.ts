import { type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import {
  INTERVIEW_API_ENTITIES,
  InterviewApiModule,
  type InterviewApiModuleOptions,
  interviewApiMigrations,
  type ResourceDefinition,
} from '../lib/index.js';
import { TestDatabase } from './support/database.js';
import { SCORE_CARDS, ScoreCardEntity } from './support/score-card.entity.js';
import { SessionEntity } from './support/session.entity.js';
import { keyWithEveryScope, OpenedDataSources, startApp } from './support/started-app.js';
import { deleteQueueKeys } from './support/webhooks.js';

const SESSIONS: ResourceDefinition = {
  path: 'sessions',
  entity: SessionEntity,
  object: 'session',
  scope: 'results:read',
  filters: ['status'],
};

/** How the host's DataSource finds its entities: TypeORM's autoLoadEntities, or a list by hand. */
type HostEntities = { autoLoadEntities: true } | { autoLoadEntities: false; entities: Type<unknown>[] };

// Nothing in this file registers a host entity through TypeOrmModule.forFeature: a resource's entity
// reaches an autoLoadEntities DataSource only if the module adds it. What forFeature adds is kept
// for the process, so each autoLoadEntities test comes first with an entity of its own.
describe('the DataSource holds the entities the module reads (README "Mounting", "Host resources")', () => {
  let db: TestDatabase;
  const dataSources = new OpenedDataSources();

  beforeEach(async () => {
    db = await TestDatabase.create();
  });
  afterEach(async () => {
    await dataSources.closeAll();
    await db.drop();
    await deleteQueueKeys(db.name);
  });

  const options = (): InterviewApiModuleOptions => ({
    keyPrefix: 'iv',
    cursorSecret: 'entity-registration-cursor-secret-0123456789',
    redis: { host: '127.0.0.1', port: 6379 },
    queuePrefix: db.name,
    rateLimit: false,
  });

  const MIGRATED = { migrated: true };

  /**
   * Starts a host whose DataSource finds its entities as `entities` says. `migrated` builds the
   * module's tables with its migrations rather than synchronize, so that they exist whatever the
   * entities: a DataSource missing the module's then starts as far as the module lets it.
   */
  async function boot(
    entities: HostEntities,
    interviewApi: () => DynamicModule,
    { migrated }: { migrated: boolean } = { migrated: false },
  ): Promise<INestApplication> {
    const base = db.options({ synchronize: !migrated });
    return startApp([
      TypeOrmModule.forRootAsync({
        useFactory: () => ({
          ...base,
          ...entities,
          ...(migrated
            ? {
                migrations: interviewApiMigrations(base.type as 'postgres' | 'better-sqlite3'),
                migrationsRun: true,
              }
            : {}),
        }),
        dataSourceFactory: dataSources.factory,
      }),
      interviewApi(),
    ]);
  }

  /** The error a boot fails with; a host that starts instead is closed, and undefined returned. */
  async function bootFailure(...args: Parameters<typeof boot>): Promise<unknown> {
    try {
      await (await boot(...args)).close();
    } catch (error) {
      return error;
    }
    return undefined;
  }

  async function expectAnswers(app: INestApplication, path: string): Promise<void> {
    const key = await keyWithEveryScope(app, 'acct_entities');
    await request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${key}`).expect(200);
  }

  describe('autoLoadEntities', () => {
    it("adds a resource's entity the host did not register (forRoot)", async () => {
      const app = await boot({ autoLoadEntities: true }, () =>
        InterviewApiModule.forRoot({ ...options(), resources: [SESSIONS] }),
      );
      await expectAnswers(app, '/v1/sessions');
      await app.close();
    });

    it("adds a resource's entity the host did not register (forRootAsync)", async () => {
      const app = await boot({ autoLoadEntities: true }, () =>
        InterviewApiModule.forRootAsync({ useFactory: options, resources: [SCORE_CARDS] }),
      );
      await expectAnswers(app, '/v1/score_cards');
      await app.close();
    });
  });

  describe('entities listed by hand', () => {
    it("refuses to start without the module's, naming them and the fix", async () => {
      const entities: HostEntities = { autoLoadEntities: false, entities: [SessionEntity] };
      const failure = await bootFailure(entities, () => InterviewApiModule.forRoot(options()), MIGRATED);
      expect(failure).toHaveProperty(
        'message',
        `nest-interview-api: the DataSource has no metadata for ${INTERVIEW_API_ENTITIES.map((entity) => entity.name).join(', ')}: ` +
          'give it autoLoadEntities: true, or add ...INTERVIEW_API_ENTITIES to its entities.',
      );
    });

    it("refuses to start when one of the module's is left out, naming it", async () => {
      const [apiKeys, ...others] = INTERVIEW_API_ENTITIES;
      const entities: HostEntities = { autoLoadEntities: false, entities: others };
      const failure = await bootFailure(entities, () => InterviewApiModule.forRoot(options()), MIGRATED);
      expect(failure).toHaveProperty('message', expect.stringContaining(`no metadata for ${apiKeys.name}: `));
    });

    it("starts with the module's and its resources' among them, and /v1 answers", async () => {
      const app = await boot(
        { autoLoadEntities: false, entities: [...INTERVIEW_API_ENTITIES, SessionEntity] },
        () => InterviewApiModule.forRoot({ ...options(), resources: [SESSIONS] }),
      );
      await expectAnswers(app, '/v1/ping');
      await expectAnswers(app, '/v1/webhook_endpoints');
      await expectAnswers(app, '/v1/sessions');
      await app.close();
    });

    it("refuses to start without a resource's entity, naming the resource and the fix", async () => {
      const failure = await bootFailure(
        { autoLoadEntities: false, entities: [...INTERVIEW_API_ENTITIES, ScoreCardEntity] },
        () => InterviewApiModule.forRoot({ ...options(), resources: [SCORE_CARDS, SESSIONS] }),
      );
      expect(failure).toEqual(
        expect.objectContaining({
          name: 'InvalidModuleOptionsError',
          message:
            'InterviewApiModule option "resources[1].entity" (path "sessions") is SessionEntity, which the ' +
            'DataSource has no metadata for: with autoLoadEntities: true the module adds it; a DataSource whose ' +
            'entities are listed by hand must list it (a class decorated with @Entity).',
        }),
      );
    });
  });
});
