import { jest } from '@jest/globals';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { apiClient } from './support/api-client.js';
import { TestDatabase } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { type PlanNode, planNodes } from './support/query-plan.js';

const ACCOUNT = 'acct_event_plans';
const EVENTS = 5_000;

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

  /** The plan of the list's statement for `query`, captured rather than run. */
  async function listPlan(query: string): Promise<PlanNode[]> {
    const captured: [string, unknown[]][] = [];
    const original = SelectQueryBuilder.prototype.getRawAndEntities;
    const spy = jest
      .spyOn(SelectQueryBuilder.prototype, 'getRawAndEntities')
      // The list's statement is captured rather than run (its plan is what is checked); the key's
      // look-up and any other query run as usual.
      .mockImplementation(function (this: SelectQueryBuilder<object>) {
        if (this.alias !== 'event') return original.call(this);
        captured.push(this.getQueryAndParameters());
        return Promise.resolve({ entities: [], raw: [] });
      });
    try {
      const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
      expect((await client.get(`/v1/events?${query}`)).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    expect(captured).toHaveLength(1);
    const [[sql, params]] = captured;
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
