import { randomBytes } from 'node:crypto';
import { type DynamicModule, type INestApplication } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  type ApiEvent,
  EventPublisher,
  INTERVIEW_API_ENTITIES,
  InterviewApiModule,
  type InterviewApiModuleOptions,
  ParameterInvalidError,
  type PublishEventInput,
  type ResourceDefinition,
  WebhookEndpointEntity,
} from '../lib/index.js';
import { apiClient, type ApiClient } from './support/api-client.js';
import { CandidateEntity } from './support/candidate.entity.js';
import { TestDatabase } from './support/database.js';
import { CURSOR_SECRET } from './support/host-app.js';
import { OpenReceivers } from './support/receiver.js';
import { SessionEntity } from './support/session.entity.js';
import { keyWithEveryScope, OpenedDataSources, startApp } from './support/started-app.js';
import { createEndpoint, deleteQueueKeys, REDIS, TEST_WEBHOOKS, verifiesWith } from './support/webhooks.js';

/** The name the host gives the DataSource the module is to use. */
const INTERVIEW = 'interview';

const SESSIONS: ResourceDefinition<SessionEntity> = {
  path: 'sessions',
  entity: SessionEntity,
  object: 'session',
  scope: 'results:read',
};

const ACCOUNT = 'acct_named_ds';
const SECRETS_KEY = randomBytes(32);

/** The module's options, but for `resources` and `dataSource`, which go to forRoot(Async) itself. */
function moduleOptions(queuePrefix: string): InterviewApiModuleOptions {
  return {
    keyPrefix: 'iv',
    cursorSecret: CURSOR_SECRET,
    redis: REDIS,
    queuePrefix,
    rateLimit: false,
    // Encrypted at rest too: the start-time encryption of stored secrets reads the named DataSource.
    webhooks: { ...TEST_WEBHOOKS, secretEncryptionKeys: [SECRETS_KEY] },
  };
}

const MOUNTINGS: Readonly<Record<string, (queuePrefix: string, dataSource: string) => DynamicModule>> = {
  forRoot: (queuePrefix, dataSource) =>
    InterviewApiModule.forRoot({ ...moduleOptions(queuePrefix), resources: [SESSIONS], dataSource }),
  forRootAsync: (queuePrefix, dataSource) =>
    InterviewApiModule.forRootAsync({
      useFactory: () => moduleOptions(queuePrefix),
      resources: [SESSIONS],
      dataSource,
    }),
};

function input(id: string): PublishEventInput {
  return {
    accountId: ACCOUNT,
    type: 'result.ready',
    livemode: false,
    data: { id, object: 'result', status: 'ready' },
  };
}

/** Which of `tables` the DataSource's database (its file, or its schema) holds. */
async function tablesIn(dataSource: DataSource, tables: readonly string[]): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  try {
    const held: string[] = [];
    for (const table of tables) if (await runner.hasTable(table)) held.push(table);
    return held;
  } finally {
    await runner.release();
  }
}

describe('the dataSource option: the module on a named DataSource', () => {
  const dataSources = new OpenedDataSources();
  const receivers = new OpenReceivers();
  let hostDb: TestDatabase;
  let interviewDb: TestDatabase;

  beforeEach(async () => {
    hostDb = await TestDatabase.create();
    interviewDb = await TestDatabase.create();
  });
  afterEach(async () => {
    await receivers.closeAll();
    await dataSources.closeAll();
    await Promise.all([hostDb.drop(), interviewDb.drop()]);
    await deleteQueueKeys(interviewDb.name);
  });

  /**
   * A host whose default DataSource (with an entity of its own) is one database and whose
   * `interview` DataSource is another, with the module mounted by `mount`.
   */
  function boot(mount: DynamicModule): Promise<INestApplication> {
    return startApp([
      TypeOrmModule.forRootAsync({
        useFactory: () => ({ ...hostDb.options(), autoLoadEntities: true }),
        dataSourceFactory: dataSources.factory,
      }),
      TypeOrmModule.forFeature([CandidateEntity]),
      TypeOrmModule.forRootAsync({
        name: INTERVIEW,
        useFactory: () => ({ ...interviewDb.options(), autoLoadEntities: true }),
        dataSourceFactory: dataSources.factory,
      }),
      mount,
    ]);
  }

  it.each(Object.keys(MOUNTINGS))(
    'keeps keys, events, deliveries and resources in that DataSource only (%s)',
    async (mounting) => {
      const app = await boot(MOUNTINGS[mounting](interviewDb.name, INTERVIEW));
      try {
        const named = app.get<DataSource>(getDataSourceToken(INTERVIEW));
        const byDefault = app.get<DataSource>(getDataSourceToken());
        const publisher = app.get(EventPublisher);
        const api: ApiClient = apiClient({ app }, await keyWithEveryScope(app, ACCOUNT));

        const receiver = await receivers.start();
        const endpoint = await createEndpoint(api, receiver.url);
        const published = await publisher.publish(input('res_plain'));
        const inTransaction = await named.transaction((manager): Promise<ApiEvent> =>
          publisher.publish(input('res_in_transaction'), { manager }),
        );

        const events = await api.get('/v1/events');
        expect(events.status).toBe(200);
        expect((events.body.data as ApiEvent[]).map((event) => event.id).sort()).toEqual(
          [published.id, inTransaction.id].sort(),
        );

        const received = await receiver.waitFor(2);
        expect(received.map((request) => (JSON.parse(request.body) as ApiEvent).id).sort()).toEqual(
          [published.id, inTransaction.id].sort(),
        );
        for (const request of received) {
          expect(verifiesWith(request, endpoint.secret)).toEqual({ standard: true, ours: true });
        }
        const stored = await named.getRepository(WebhookEndpointEntity).find();
        expect(stored.map((row) => row.secret)).toEqual([expect.stringMatching(/^enc:v1:/)]);

        await named.getRepository(SessionEntity).insert({
          id: 'ses_named_ds',
          accountId: ACCOUNT,
          livemode: false,
          status: 'completed',
          candidateName: 'Ada',
          createdAt: new Date(),
        });
        const sessions = await api.get('/v1/sessions');
        expect(sessions.status).toBe(200);
        expect(sessions.body.data).toEqual([
          expect.objectContaining({ id: 'ses_named_ds', object: 'session' }),
        ]);

        const moduleTables = [...INTERVIEW_API_ENTITIES, SessionEntity].map(
          (entity) => named.getMetadata(entity).tableName,
        );
        const hostTable = byDefault.getMetadata(CandidateEntity).tableName;
        expect(await tablesIn(named, moduleTables)).toEqual(moduleTables);
        expect(await tablesIn(byDefault, [...moduleTables, hostTable])).toEqual([hostTable]);
        expect(byDefault.entityMetadatas.map((metadata) => metadata.tableName)).toEqual([hostTable]);
      } finally {
        await app.close();
      }
    },
  );

  it("refuses, changing nothing, a publish in a transaction of another DataSource than the module's", async () => {
    const app = await boot(MOUNTINGS.forRoot(interviewDb.name, INTERVIEW));
    try {
      const named = app.get<DataSource>(getDataSourceToken(INTERVIEW));
      const byDefault = app.get<DataSource>(getDataSourceToken());
      const publisher = app.get(EventPublisher);
      const api = apiClient({ app }, await keyWithEveryScope(app, ACCOUNT));

      const refused = byDefault.transaction((manager) =>
        publisher.publish(input('res_elsewhere'), { manager }),
      );
      await expect(refused).rejects.toThrow(ParameterInvalidError);
      await expect(refused).rejects.toThrow(/manager must be an EntityManager of the module's DataSource/);

      const events = await api.get('/v1/events');
      expect(events.status).toBe(200);
      expect(events.body.data).toEqual([]);
      // The control: the same publish with the module's DataSource's manager is stored.
      await named.transaction((manager) => publisher.publish(input('res_here'), { manager }));
      expect((await api.get('/v1/events')).body.data).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it.each(Object.keys(MOUNTINGS))(
    'refuses to start when dataSource names no DataSource of the app (%s), naming the option',
    async (mounting) => {
      await expect(boot(MOUNTINGS[mounting](interviewDb.name, 'reports'))).rejects.toEqual(
        expect.objectContaining({
          name: 'InvalidModuleOptionsError',
          message: expect.stringMatching(/option "dataSource" is "reports", but no DataSource has that name/),
        }),
      );
    },
  );
});
