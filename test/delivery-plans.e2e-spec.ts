import { DataSource } from 'typeorm';
import { SqlDialect } from '../lib/database/sql-dialect.js';
import type { ClaimedDelivery } from '../lib/delivery-store/claimed-delivery.js';
import { overdueStatement } from '../lib/delivery-store/bound-statements.js';
import { CLAIM } from '../lib/delivery-store/postgres-statements.js';
import { dropStatements } from '../lib/delivery-store/bound-statements.js';
import { recordStatements } from '../lib/delivery-store/bound-statements.js';
import { renewalStatement } from '../lib/delivery-store/bound-statements.js';
import { interviewApiMigrations } from '../lib/index.js';
import { TestDatabase } from './support/database.js';
import { attemptOutcome } from './support/outcomes.js';
import { analyzedPlanNodes, planNodes } from './support/query-plan.js';

/** A PostgreSQL schema of its own with an endpoint and `rows` events, each with a pending delivery, due now. */
async function seeded(rows: number): Promise<{ database: TestDatabase; dataSource: DataSource }> {
  const database = await TestDatabase.create('postgres');
  const dataSource = new DataSource({
    ...database.options({ synchronize: false }),
    migrations: interviewApiMigrations('postgres'),
    migrationsRun: true,
  });
  await dataSource.initialize();
  await dataSource.query(
    `INSERT INTO interview_webhook_endpoints (id, account_id, livemode, url, enabled_events, status, secret, created_at, updated_at)
     VALUES ('whk_plan', 'acct_plan', true, 'https://example.com/hook', '["*"]', 'enabled', 'whsec_x', now(), now())`,
  );
  await dataSource.query(
    `INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at)
     SELECT 'evt_' || lpad(i::text, 26, '0'), 'acct_plan', true, 'result.ready', repeat('x', 300), now()
     FROM generate_series(1, $1::int) AS i`,
    [rows],
  );
  await dataSource.query(
    `INSERT INTO interview_webhook_deliveries (id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at)
     SELECT 'dlv_' || lpad(i::text, 26, '0'), 'acct_plan', true, 'whk_plan', 'evt_' || lpad(i::text, 26, '0'), 'result.ready', 'pending', 0, now(), now(), now()
     FROM generate_series(1, $1::int) AS i`,
    [rows],
  );
  await dataSource.query(
    `INSERT INTO interview_pending_deliveries (delivery_id, next_attempt_at, endpoint_id)
     SELECT id, next_attempt_at, endpoint_id FROM interview_webhook_deliveries`,
  );
  return { database, dataSource };
}

/** The batch a worker claimed: 100 of the deliveries, from the 200th on. */
const BATCH = Array.from({ length: 100 }, (_, i) => `dlv_${String(200 + i).padStart(26, '0')}`);

/** The batch's deliveries as a worker holds them, claimed `now`. */
const held = (now: Date): ClaimedDelivery[] =>
  BATCH.map((id) => ({
    id,
    endpointId: 'whk_plan',
    tenant: 'acct_plan:test',
    eventId: 'evt_plan',
    attempt: 0,
    claimedAt: now,
    target: null,
    payload: null,
    bodyUnread: false,
  }));

/**
 * The claim, its renewal and the record must find a batch's deliveries by key even on a table the
 * planner has no statistics for: a burst on a new or quiet table, or a database without
 * autovacuum. Written as plain joins, the claim and the record scanned the whole table for every
 * batch of ids. PostgreSQL only, whichever database the suite runs on.
 */
describe('delivery statements on PostgreSQL: plans', () => {
  const ROWS = 5_000;
  let database: TestDatabase;
  let dataSource: DataSource;
  let sql: SqlDialect;

  beforeAll(async () => {
    ({ database, dataSource } = await seeded(ROWS));
    sql = new SqlDialect(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  async function scansOfDeliveries(statement: string, params: unknown[]): Promise<string[]> {
    return (await planNodes(dataSource, statement, params))
      .filter((node) => node['Relation Name'] === 'interview_webhook_deliveries')
      .map((node) => node['Node Type']);
  }

  it('the claim reads a batch of ids through the primary key', async () => {
    const now = new Date();
    const scans = await scansOfDeliveries(CLAIM, [
      new Date(now.getTime() + 60_000),
      now,
      BATCH,
      now,
      ['whk_plan'],
    ]);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans).not.toContain('Seq Scan');
  });

  it('the record reads a batch of ids through the primary key', async () => {
    const now = new Date();
    const outcomes = held(now).map((delivery) => attemptOutcome(delivery));
    const [statement] = recordStatements(sql, outcomes, now);
    const scans = await scansOfDeliveries(statement.sql, statement.params);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans).not.toContain('Seq Scan');
  });

  it('the sweeper reads the overdue deliveries through the schedule and the primary key', async () => {
    const now = new Date();
    const statement = overdueStatement(sql, now, now, 10_000);
    const scans = await scansOfDeliveries(statement.sql, statement.params);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans).not.toContain('Seq Scan');
  });

  it("the drop of an endpoint's retries reads them through the schedule and the primary key", async () => {
    const [statement] = dropStatements(sql, 'whk_plan', 'endpoint_disabled', new Date());
    const scans = await scansOfDeliveries(statement.sql, statement.params);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans).not.toContain('Seq Scan');
    // The schedule is read by the endpoint's index, not whole: other accounts' pending rows cost nothing.
    const plan = await planNodes(dataSource, statement.sql, statement.params);
    expect(plan.map((node) => node['Index Name'])).toContain('idx_interview_pending_deliveries_endpoint');
    const readsOfSchedule = plan.filter((node) => node['Relation Name'] === 'interview_pending_deliveries');
    expect(readsOfSchedule.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  it('the renewal reads the claims it names through the primary key', async () => {
    const now = new Date();
    const statement = renewalStatement(sql, held(now), new Date(now.getTime() + 60_000));
    const scans = await scansOfDeliveries(statement.sql, statement.params);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans).not.toContain('Seq Scan');
  });
});

/**
 * The record of a batch compares each of its rows with a few others, not with the whole batch:
 * matching the outcomes to the deliveries the update changed pair by pair, or the batch's ids as a
 * filter on a scan of the whole schedule (chosen while the planner took the schedule for a few
 * pages, up to some thousand rows), cost the database the batch's size times as much. (On a
 * table of deliveries that small the update scans it too, which this leaves to its size.)
 */
describe.each([2_000, 5_000])('the record on PostgreSQL, %i pending deliveries', (rows) => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    ({ database, dataSource } = await seeded(rows));
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it.each([
    ['succeeded', null],
    ['retried', new Date(Date.now() + 60_000)],
  ])('of deliveries that %s sets aside no more rows than the batch has', async (_, retryAt) => {
    const now = new Date();
    // Each delivery under the claim the outcomes name.
    await dataSource.query('UPDATE interview_webhook_deliveries SET claimed_at = $1, locked_until = $2', [
      now,
      new Date(now.getTime() + 60_000),
    ]);
    const outcomes = held(now).map((delivery) => attemptOutcome(delivery, retryAt));
    const [statement] = recordStatements(new SqlDialect(dataSource), outcomes, now);
    const plan = await analyzedPlanNodes(dataSource, statement.sql, statement.params);
    const setAside = plan.map(
      (node) => (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Join Filter'] ?? 0),
    );
    expect(Math.max(...setAside)).toBeLessThanOrEqual(BATCH.length);
    // The record did its work: every delivery of the batch updated.
    const updated = plan.find(
      (node) =>
        node['Node Type'] === 'ModifyTable' && node['Relation Name'] === 'interview_webhook_deliveries',
    );
    expect(updated?.['Actual Rows']).toBe(BATCH.length);
  });
});
