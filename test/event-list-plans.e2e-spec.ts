import { jest } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { EVENT_PAGE, EVENT_PAGE_OF_TYPES } from '../lib/delivery-store/postgres-statements.js';
import { CursorCodec } from '../lib/pagination/cursor-codec.js';
import { apiClient } from './support/api-client.js';
import { TestDatabase } from './support/database.js';
import { createTestHost, CURSOR_SECRET, type TestHost } from './support/host-app.js';
import { type AnalyzedPlanNode, analyzedPlanNodes, type PlanNode, planNodes } from './support/query-plan.js';

const ACCOUNT = 'acct_event_plans';
const EVENTS = 5_000;

/** The event list's statements, of every limit a page may have. */
const LIST_STATEMENTS = new Set(
  Array.from({ length: 100 }, (_, i) => [EVENT_PAGE(i + 1), EVENT_PAGE_OF_TYPES(i + 1)]).flat(),
);

/** The event list's statements a request ran (answered 200), with their values. */
async function listStatements(
  host: TestHost,
  send: () => Promise<Response>,
): Promise<{ sql: string; params: unknown[] }[]> {
  const { logger } = host.app.get(DataSource);
  const spy = jest.spyOn(logger, 'logQuery');
  try {
    expect((await send()).status).toBe(200);
    return spy.mock.calls
      .filter(([sql]) => LIST_STATEMENTS.has(sql))
      .map(([sql, params]) => ({ sql, params: Array.isArray(params) ? params : [] }));
  } finally {
    spy.mockRestore();
  }
}

/**
 * `GET /v1/events?type=` on PostgreSQL, whichever database the suite runs on: a type the account
 * rarely publishes is read from the type index, not found by reading every event.
 */
describe('the event list filtered by type on PostgreSQL: plan', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({
      db: await TestDatabase.create('postgres'),
      module: { worker: false, eventTypes: ['session.completed', 'session.started'] },
    });
    await host.app.get(DataSource).query(
      `INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at)
       SELECT 'evt_' || lpad(i::text, 26, '0'), $1, false,
              CASE WHEN i % 1000 = 0 THEN 'session.completed'
                   WHEN i % 1000 = 500 THEN 'session.started'
                   ELSE 'result.ready' END, '{}', now()
       FROM generate_series(1, $2::int) AS i`,
      [ACCOUNT, EVENTS],
    );
    await host.app.get(DataSource).query('ANALYZE interview_events');
  });
  afterAll(() => host.close());

  /** The plan of the list's statement for `query`, as PostgreSQL would run it. */
  async function listPlan(query: string): Promise<PlanNode[]> {
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    const [{ sql, params }] = await listStatements(host, () => client.get(`/v1/events?${query}`));
    return planNodes(host.app.get(DataSource), sql, params);
  }

  it.each(['type=session.completed', 'type=session.*'])(
    'reads rare types through their index (%s)',
    async (query) => {
      const plan = await listPlan(query);
      expect(plan.some((node) => node['Index Name'] === 'idx_interview_events_type')).toBe(true);
      expect(plan.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
    },
  );

  it('answers the events of that type, or of that group', async () => {
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    expect((await client.get('/v1/events?type=session.completed')).body.data).toHaveLength(EVENTS / 1000);
    expect((await client.get('/v1/events?type=session.*')).body.data).toHaveLength((2 * EVENTS) / 1000);
  });
});

/**
 * The first page and a page deep in the feed right after a burst of events, before any statistics
 * know of them (the table never analyzed): each is read from the keyset index where it starts,
 * limit + 1 entries, neither the account's rows gathered and sorted nor the index read from its top.
 */
describe('the event list right after a burst, without statistics, on PostgreSQL: plan', () => {
  const BURST = 20_000;
  const LIMIT = 25;
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({ db: await TestDatabase.create('postgres'), module: { worker: false } });
    const dataSource = host.app.get(DataSource);
    // No analyze may run while the test reads plans: the statistics stay as old as the table.
    await dataSource.query('ALTER TABLE interview_events SET (autovacuum_enabled = false)');
    await dataSource.query(
      `INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at)
       SELECT id, CASE WHEN i % 10 = 0 THEN 'acct_other' ELSE $1 END, false, 'result.ready',
              json_build_object('id', id, 'object', 'event')::text, now() - make_interval(secs => i * 0.001)
       FROM generate_series(1, $2::int) AS i, LATERAL (SELECT 'evt_' || lpad(i::text, 26, '0') AS id) AS named`,
      [ACCOUNT, BURST],
    );
  });
  afterAll(() => host.close());

  /** The statement and values of the page that starts below the account's `depth`-th event. */
  async function deepPage(depth: number): Promise<{ sql: string; params: unknown[] }> {
    const dataSource = host.app.get(DataSource);
    const [position]: { created_at: string; id: string }[] = await dataSource.query(
      `SELECT CAST(created_at AS TEXT) AS created_at, id FROM interview_events
       WHERE account_id = $1 AND livemode = false ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [ACCOUNT, depth - 1],
    );
    const cursor = new CursorCodec(CURSOR_SECRET).encode(
      { createdAt: position.created_at, id: position.id },
      { list: 'events', accountId: ACCOUNT, livemode: false, filters: {} },
    );
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    const [statement] = await listStatements(host, async () => {
      const response = await client.get('/v1/events', { limit: LIMIT, cursor });
      // The page is the one below the cursor: the events after depth, newest first.
      expect(response.body.data[0].id).toBe(
        (
          await dataSource.query(
            `SELECT id FROM interview_events WHERE account_id = $1 AND livemode = false
             ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
            [ACCOUNT, depth],
          )
        )[0].id,
      );
      return response;
    });
    return statement;
  }

  function readsOnlyItsPage(plan: AnalyzedPlanNode[]): void {
    const scans = plan.filter((node) => node['Relation Name'] === 'interview_events');
    expect(scans).toEqual([
      expect.objectContaining({ 'Node Type': 'Index Scan', 'Index Name': 'idx_interview_events_list' }),
    ]);
    expect(scans[0]['Actual Rows']).toBeLessThanOrEqual(LIMIT + 1);
    expect(scans[0]['Rows Removed by Filter'] ?? 0).toBe(0);
    // Its pages: a few of the index and at most one of the table per row, not the index entries
    // before the page's position (rejected by the index conditions, no row counts them).
    expect(scans[0]['Shared Hit Blocks'] + scans[0]['Shared Read Blocks']).toBeLessThanOrEqual(LIMIT + 10);
    expect(plan.some((node) => node['Node Type'] === 'Sort')).toBe(false);
  }

  it('reads limit + 1 index entries at 90 % depth, as planned for its values', async () => {
    const { sql, params } = await deepPage(Math.round(BURST * 0.9 * 0.9));
    readsOnlyItsPage(await analyzedPlanNodes(host.app.get(DataSource), sql, params));
  });

  it('reads limit + 1 index entries at 90 % depth, as planned for any values (a generic plan)', async () => {
    const { sql, params } = await deepPage(Math.round(BURST * 0.9 * 0.9));
    readsOnlyItsPage(await analyzedPlanNodes(host.app.get(DataSource), sql, params, { generic: true }));
  });

  it.each([
    ['as planned for its values', false],
    ['as planned for any values (a generic plan)', true],
  ])('reads limit + 1 index entries for the first page, %s', async (_planned, generic) => {
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    const [{ sql, params }] = await listStatements(host, () => client.get('/v1/events', { limit: LIMIT }));
    readsOnlyItsPage(await analyzedPlanNodes(host.app.get(DataSource), sql, params, { generic }));
  });
});
