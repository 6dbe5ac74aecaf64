import { DataSource, type DataSourceOptions } from 'typeorm';
import { InstallationEntity } from '../lib/installation/installation.entity.js';
import { readInstallationId } from '../lib/installation/installation-id.js';
import { INTERVIEW_API_ENTITIES } from '../lib/interview-api.module.js';
import { interviewApiMigrations, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from '../lib/migrations/index.js';
import { generateId } from '../lib/identifiers/generate-id.js';
import { apiClient } from './support/api-client.js';
import { DB_KIND, TestDatabase } from './support/database.js';
import { createTestHost } from './support/host-app.js';
import { deleteQueueKeys } from './support/webhooks.js';

describe('migrations', () => {
  let db: TestDatabase;
  const dataSources: DataSource[] = [];

  beforeEach(async () => {
    db = await TestDatabase.create();
  });

  afterEach(async () => {
    for (const dataSource of dataSources.splice(0)) {
      if (dataSource.isInitialized) await dataSource.destroy();
    }
    await db.drop();
  });

  /** A DataSource over the module's entities and migrations, never synchronized. */
  async function open(
    extra: Partial<{
      migrationsRun: boolean;
      entities: (typeof INTERVIEW_API_ENTITIES)[number][];
      /** PostgreSQL's TimeZone for its connections. */
      timeZone: string;
    }> = {},
  ): Promise<DataSource> {
    const base = db.options({ synchronize: false, timeZone: extra.timeZone });
    const options = {
      ...base,
      entities: extra.entities ?? INTERVIEW_API_ENTITIES,
      migrations: interviewApiMigrations(base.type as 'postgres' | 'better-sqlite3'),
      migrationsRun: extra.migrationsRun ?? false,
    } as DataSourceOptions;
    const dataSource = new DataSource(options);
    dataSources.push(dataSource);
    return dataSource.initialize();
  }

  /** What `synchronize` would still run against the database: nothing if the schema matches. */
  async function drift(dataSource: DataSource): Promise<string[]> {
    const log = await dataSource.driver.createSchemaBuilder().log();
    return log.upQueries.map((query) => query.query);
  }

  const moduleTables = (dataSource: DataSource) =>
    dataSource.entityMetadatas.map((metadata) => metadata.tableName).sort();

  async function existingModuleTables(dataSource: DataSource): Promise<string[]> {
    const queryRunner = dataSource.createQueryRunner();
    try {
      const tables = await queryRunner.getTables(moduleTables(dataSource));
      return tables.map((table) => table.name.split('.').pop()!).sort();
    } finally {
      await queryRunner.release();
    }
  }

  async function executedMigrations(dataSource: DataSource): Promise<string[]> {
    const rows: { name: string }[] = await dataSource.query(
      `SELECT ${dataSource.driver.escape('name')} AS name FROM ${dataSource.driver.escape('migrations')}`,
    );
    return rows.map((row) => row.name);
  }

  it('picks the migrations for the DataSource type', () => {
    expect(interviewApiMigrations('postgres')).toEqual([...POSTGRES_MIGRATIONS]);
    expect(interviewApiMigrations('better-sqlite3')).toEqual([...SQLITE_MIGRATIONS]);
    expect(interviewApiMigrations('sqlite')).toEqual([...SQLITE_MIGRATIONS]);
    expect(() => interviewApiMigrations('mysql' as never)).toThrow(/mysql/);
  });

  it('migrates a fresh database to exactly the entities, and undoes it', async () => {
    const dataSource = await open();
    expect(moduleTables(dataSource)).toHaveLength(INTERVIEW_API_ENTITIES.length);
    expect(await existingModuleTables(dataSource)).toEqual([]);
    // The drift check sees a missing schema: it is not vacuous.
    expect((await drift(dataSource)).length).toBeGreaterThan(0);

    const ran = await dataSource.runMigrations();
    expect(ran.map((migration) => migration.name)).toEqual(
      interviewApiMigrations(dataSource.options.type as 'postgres' | 'better-sqlite3').map(
        (migration) => new migration().name,
      ),
    );
    expect(await existingModuleTables(dataSource)).toEqual(moduleTables(dataSource));
    expect(await drift(dataSource)).toEqual([]);

    for (let left = ran.length; left > 0; left--) await dataSource.undoLastMigration();
    expect(await existingModuleTables(dataSource)).toEqual([]);
    expect(await executedMigrations(dataSource)).toEqual([]);
  });

  // TypeORM's drift check compares index columns but not their predicates or table storage options.
  it("keeps no index on the deliveries' state (their schedule is a table) and, on PostgreSQL, room on delivery pages", async () => {
    const dataSource = await open({ migrationsRun: true });
    const postgres = dataSource.options.type === 'postgres';
    const indexes = async (table: string): Promise<string[]> =>
      (
        (await dataSource.query(
          postgres
            ? `SELECT indexdef AS definition FROM pg_indexes WHERE tablename = $1 AND schemaname = current_schema()`
            : `SELECT sql AS definition FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`,
          [table],
        )) as { definition: string }[]
      ).map((row) => row.definition);
    // An update that changes an indexed column rewrites every index entry of the row.
    const deliveryIndexes = await indexes('interview_webhook_deliveries');
    expect(deliveryIndexes.length).toBeGreaterThan(0);
    for (const definition of deliveryIndexes)
      expect(definition).not.toMatch(/status|next_attempt_at|locked_until|claimed_at/);
    expect(await indexes('interview_pending_deliveries')).toContainEqual(
      expect.stringMatching(/idx_interview_pending_deliveries_due.*\(\s*"?next_attempt_at"?\s*\)/),
    );
    expect(await indexes('interview_pending_deliveries')).toContainEqual(
      expect.stringMatching(/idx_interview_pending_deliveries_endpoint.*\(\s*"?endpoint_id"?\s*\)/),
    );
    if (postgres) {
      const [table]: { options: string[] | null }[] = await dataSource.query(
        `SELECT reloptions AS options FROM pg_class WHERE relname = 'interview_webhook_deliveries' AND relnamespace = to_regnamespace(current_schema())`,
      );
      expect(table.options).toEqual(['fillfactor=50']);
    }
  });

  /** Undoes migrations, newest first, up to and including the one whose name starts with `name`. */
  async function undoThrough(dataSource: DataSource, name: string): Promise<void> {
    for (;;) {
      const executed = await executedMigrations(dataSource);
      const last = interviewApiMigrations(dataSource.options.type as 'postgres')
        .map((migration) => new migration().name ?? '')
        .filter((migrationName) => executed.includes(migrationName))
        .pop();
      if (last === undefined) throw new Error(`${name} is not applied`);
      await dataSource.undoLastMigration();
      if (last.startsWith(name)) return;
    }
  }

  it('schedules the deliveries pending before the schedule existed, and gives them back their index when undone', async () => {
    const dataSource = await open({ migrationsRun: true });
    await undoThrough(dataSource, 'InterviewApiPendingDeliveries');
    const postgres = dataSource.options.type === 'postgres';
    const due = new Date('2026-11-20T10:00:00.000Z');
    const at = (date: Date): Date | string =>
      postgres ? date : date.toISOString().replace('T', ' ').replace('Z', '');
    for (const [id, status, next] of [
      ['dlv_pending', 'pending', due],
      ['dlv_done', 'succeeded', null],
    ] as const) {
      await dataSource.query(
        `INSERT INTO interview_webhook_deliveries (id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at)
         VALUES (${[...Array(11).keys()].map((i) => (postgres ? `$${i + 1}` : '?')).join(', ')})`,
        [id, 'acct_1', true, 'whk_1', 'evt_1', 'result.ready', status, 0, next && at(next), at(due), at(due)],
      );
    }
    await dataSource.runMigrations();
    // Scheduled at the time the delivery is due.
    const scheduled: { id: string }[] = await dataSource.query(
      `SELECT p.delivery_id AS id FROM interview_pending_deliveries p
       JOIN interview_webhook_deliveries d ON d.id = p.delivery_id AND d.next_attempt_at = p.next_attempt_at`,
    );
    expect(scheduled.map((row) => row.id)).toEqual(['dlv_pending']);
    expect(await dataSource.query('SELECT delivery_id FROM interview_pending_deliveries')).toHaveLength(1);
    // And filed under its endpoint by the migration after.
    expect(await dataSource.query('SELECT endpoint_id FROM interview_pending_deliveries')).toEqual([
      { endpoint_id: 'whk_1' },
    ]);

    await undoThrough(dataSource, 'InterviewApiPendingDeliveries');
    expect(await existingModuleTables(dataSource)).not.toContain('interview_pending_deliveries');
    const [{ found }]: { found: number | string }[] = await dataSource.query(
      postgres
        ? `SELECT COUNT(*) AS found FROM pg_indexes WHERE indexname = 'idx_interview_deliveries_due' AND schemaname = current_schema()`
        : `SELECT COUNT(*) AS found FROM sqlite_master WHERE name = 'idx_interview_deliveries_due'`,
    );
    expect(Number(found)).toBe(1);
  });

  // Before timestamptz, a process on UTC (as the module asked) stored UTC wall-clock times.
  (DB_KIND === 'postgres' ? it : it.skip)(
    'reads the timestamps of a database installed before as UTC: the API answers the same instants, and undoing writes them back',
    async () => {
      // Connections on a zone other than UTC, which neither way of the migration may depend on.
      const dataSource = await open({ migrationsRun: true, timeZone: 'Asia/Kolkata' });
      await undoThrough(dataSource, 'InterviewApiInstants');
      const account = 'acct_upgraded';
      const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;
      // Within the events' retention; two of them a millisecond apart.
      const instants = [day + 3_600_000, day + 3_600_001, day + 5_400_250].map((ms) => new Date(ms));
      const utcText = (date: Date): string => date.toISOString().replace('T', ' ').replace('Z', '');
      const events = instants.map((at, index) => ({
        id: generateId('evt', at),
        object: 'event',
        type: 'result.ready',
        api_version: '2026-11-21',
        livemode: false,
        created_at: at.toISOString(),
        data: { object: { id: `res_${index}`, object: 'result' } },
      }));
      for (const event of events) {
        await dataSource.query(
          `INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at) VALUES ($1, $2, false, $3, $4, $5)`,
          [event.id, account, event.type, JSON.stringify(event), utcText(new Date(event.created_at))],
        );
      }
      const [created, updated, due] = instants;
      await dataSource.query(
        `INSERT INTO interview_webhook_endpoints (id, account_id, livemode, url, enabled_events, status, secret, retry_drops, created_at, updated_at)
         VALUES ('whk_upgraded', $1, false, 'https://example.com/hook', '["*"]', 'enabled', 'whsec_upgraded', 0, $2, $3)`,
        [account, utcText(created), utcText(updated)],
      );
      await dataSource.query(
        `INSERT INTO interview_webhook_deliveries (id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at)
         VALUES ('dlv_upgraded', $1, false, 'whk_upgraded', $2, 'result.ready', 'failed', 1, NULL, $3, $4)`,
        [account, events[0].id, utcText(created), utcText(due)],
      );

      await dataSource.runMigrations();
      const [{ left }]: { left: string }[] = await dataSource.query(
        `SELECT COUNT(*) AS left FROM information_schema.columns
         WHERE table_schema = current_schema() AND data_type = 'timestamp without time zone'`,
      );
      expect(Number(left)).toBe(0);
      expect(await drift(dataSource)).toEqual([]);

      const host = await createTestHost({ db, keepDatabase: true, module: { worker: false } });
      try {
        const api = apiClient(host, await host.createKey(account, 'test'));
        const listed = async (query: Record<string, string> = {}): Promise<string[]> => {
          const res = await api.get('/v1/events', query);
          expect(res.status).toBe(200);
          return (res.body.data as { id: string }[]).map((event) => event.id);
        };
        const [first, second, third] = events.map((event) => event.id);
        expect(await listed()).toEqual([third, second, first]);
        expect(await listed({ created_gte: events[1].created_at })).toEqual([third, second]);
        expect(await listed({ created_lt: events[1].created_at })).toEqual([first]);
        const endpoint = await api.get('/v1/webhook_endpoints/whk_upgraded');
        expect(endpoint.body).toMatchObject({
          created_at: created.toISOString(),
          updated_at: updated.toISOString(),
        });
        const delivery = await api.get('/v1/webhook_endpoints/whk_upgraded/deliveries/dlv_upgraded');
        expect(delivery.body).toMatchObject({
          created_at: created.toISOString(),
          updated_at: due.toISOString(),
        });
      } finally {
        await host.close();
        await deleteQueueKeys(db.name);
      }

      await undoThrough(dataSource, 'InterviewApiInstants');
      const texts: { text: string }[] = await dataSource.query(
        `SELECT to_char(created_at, 'YYYY-MM-DD HH24:MI:SS.MS') AS text FROM interview_events ORDER BY created_at`,
      );
      expect(texts.map((row) => row.text)).toEqual(instants.map(utcText));
    },
  );

  it('runs once: a second run, or a second start with migrationsRun, is a no-op', async () => {
    const first = await open({ migrationsRun: true });
    expect(await existingModuleTables(first)).toEqual(moduleTables(first));
    const executed = await executedMigrations(first);
    expect(executed).toHaveLength(interviewApiMigrations(first.options.type as 'postgres').length);
    expect(await first.runMigrations()).toEqual([]);
    expect(await first.showMigrations()).toBe(false);
    await first.destroy();

    const second = await open({ migrationsRun: true });
    expect(await executedMigrations(second)).toEqual(executed);
    expect(await second.runMigrations()).toEqual([]);
    expect(await drift(second)).toEqual([]);
  });

  /** The module's tables in `schema`, as the catalog has them whatever the search_path. */
  async function moduleTablesIn(dataSource: DataSource, schema: string): Promise<string[]> {
    const rows: { name: string }[] = await dataSource.query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2)`,
      [schema, moduleTables(dataSource)],
    );
    return rows.map((row) => row.name).sort();
  }

  // The migrations name the module's tables without a schema: on a search_path without the
  // DataSource's schema they made them in public, while TypeORM recorded them as run in the schema.
  (DB_KIND === 'postgres' ? it : it.skip)(
    "refuses to run in a DataSource schema that is not the connection's current one, before creating anything",
    async () => {
      const dataSource = await open();
      const inPublic = await moduleTablesIn(dataSource, 'public');
      const misplaced = new DataSource({
        ...db.options({ synchronize: false }),
        extra: { max: 2 },
        entities: INTERVIEW_API_ENTITIES,
        migrations: interviewApiMigrations('postgres'),
        migrationsRun: true,
      } as DataSourceOptions);
      dataSources.push(misplaced);
      try {
        await expect(misplaced.initialize()).rejects.toThrow(
          `the DataSource's schema "${db.name}" is not its connections' current schema ("public"): put it first on their search_path`,
        );
        expect(await moduleTablesIn(dataSource, 'public')).toEqual(inPublic);
      } finally {
        const made = (await moduleTablesIn(dataSource, 'public')).filter((name) => !inPublic.includes(name));
        if (made.length > 0) {
          await dataSource.query(`DROP TABLE ${made.map((name) => `public."${name}"`).join(', ')} CASCADE`);
        }
      }
      expect(await moduleTablesIn(dataSource, db.name)).toEqual([]);
      expect(await executedMigrations(dataSource)).toEqual([]);

      // With the schema first on the search_path, the same schema migrates.
      const ran = await dataSource.runMigrations();
      expect(ran).toHaveLength(POSTGRES_MIGRATIONS.length);
      expect(await moduleTablesIn(dataSource, db.name)).toEqual(moduleTables(dataSource));
      expect(await drift(dataSource)).toEqual([]);
    },
  );

  it('gives an installation id, one for good, to a DataSource listing the entities by hand without InstallationEntity', async () => {
    const dataSource = await open({
      migrationsRun: true,
      entities: INTERVIEW_API_ENTITIES.filter((entity) => entity !== InstallationEntity),
    });
    const id = await readInstallationId(dataSource);
    expect(id).toMatch(/^ins_/);
    expect(await readInstallationId(dataSource)).toBe(id);
  });
});
