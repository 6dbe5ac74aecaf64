import pg from 'pg';
import { DataSource } from 'typeorm';
import { AttemptEntity, DeliveryEntity } from '../lib/index.js';
import { CLAIM_LEASE_MS } from '../lib/interview-api.tuning.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { apiClient } from './support/api-client.js';
import { attemptOutcome } from './support/outcomes.js';
import { PG, TestDatabase } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_deadlock';

/**
 * On PostgreSQL: a worker recording a failed attempt writes the delivery and its endpoint's failing
 * streak; a request disabling the endpoint updates the endpoint, then its deliveries. The record
 * locks its endpoints first, so the two wait for each other in one order and never deadlock.
 */
describe('a record meeting a transaction that changes its endpoint, then its delivery (PostgreSQL)', () => {
  let host: TestHost;
  let other: pg.Client;

  beforeEach(async () => {
    const db = await TestDatabase.create('postgres');
    host = await createTestHost({ db, module: { worker: false } });
    other = new pg.Client({ ...PG, options: `-c search_path=${db.name}` });
    await other.connect();
    // The record is the transaction to abort: only its backend looks for the deadlock within the
    // test's time (after the default second), whatever the order the machine's load runs the two in.
    await other.query(`SET deadlock_timeout = '60s'`);
  });

  afterEach(async () => {
    await other.end();
    await host.close();
  });

  it('waits for it to commit, without a deadlock: the attempt is recorded, not lost', async () => {
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    const endpoint = await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, 1);
    const deliveries = host.app.get(DataSource).getRepository(DeliveryEntity);
    const [{ id }] = await deliveries.find();
    const store = host.app.get(DeliveryStore);
    const now = new Date();
    const [held] = await store.claim([id], now, new Date(now.getTime() + CLAIM_LEASE_MS));

    await other.query('BEGIN');
    await other.query('UPDATE interview_webhook_endpoints SET description = $1 WHERE id = $2', [
      'held by a request',
      endpoint.id,
    ]);
    const recording = store.record([attemptOutcome(held, new Date(now.getTime() + 60_000))], new Date(), {
      disableAfterMs: 3_600_000,
      pauseMs: 3_600_000,
    });
    // The record waits for the endpoint before it touches the delivery, which the other transaction
    // then updates without waiting. Polled outside the other transaction, which would keep reading
    // one snapshot of the activity.
    await eventually(async () => {
      const rows: { waiting: string }[] = await host.app.get(DataSource).query(
        `SELECT COUNT(*) AS waiting FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%'`,
      );
      return Number(rows[0].waiting) > 0;
    });
    const deadlocks = async (): Promise<number> =>
      Number(
        (await other.query('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()'))
          .rows[0].deadlocks,
      );
    const before = await deadlocks();
    await other.query('UPDATE interview_webhook_deliveries SET error = $1 WHERE id = $2', ['probe', id]);
    await other.query('COMMIT');

    await expect(recording).resolves.toEqual([]);
    expect(await deadlocks()).toBe(before);
    expect(await deliveries.findOneByOrFail({ id })).toMatchObject({
      status: 'pending',
      attempt: 1,
      error: 'http_error',
      responseStatus: 500,
    });
    expect(await host.app.get(DataSource).getRepository(AttemptEntity).findBy({ deliveryId: id })).toEqual([
      expect.objectContaining({ attempt: 1, error: 'http_error' }),
    ]);
  });
});
