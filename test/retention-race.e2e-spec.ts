import pg from 'pg';
import { DataSource } from 'typeorm';
import { AttemptEntity, DeliveryEntity, PendingDeliveryEntity } from '../lib/index.js';
import { CLAIM_LEASE_MS } from '../lib/interview-api.tuning.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { recordStatements } from '../lib/delivery-store/bound-statements.js';
import { SqlDialect } from '../lib/database/sql-dialect.js';
import { EventRetention } from '../lib/events/event-retention.js';
import { apiClient } from './support/api-client.js';
import { attemptOutcome } from './support/outcomes.js';
import { PG, TestDatabase } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_retention_race';
const RETENTION_MS = 500;

/**
 * On PostgreSQL, where a worker's record and the hourly purge run on connections of their own: a
 * delivery of an expiring event (a late replay, say) recorded while the purge runs.
 */
describe('a purge that meets a worker recording an expiring delivery (PostgreSQL)', () => {
  let host: TestHost;
  let worker: pg.Client;

  beforeEach(async () => {
    const db = await TestDatabase.create('postgres');
    host = await createTestHost({ db, module: { worker: false, eventRetentionMs: RETENTION_MS } });
    worker = new pg.Client({ ...PG, options: `-c search_path=${db.name}` });
    await worker.connect();
  });

  afterEach(async () => {
    await worker.end();
    await host.close();
  });

  it('leaves no attempt or schedule row of the deliveries it deletes', async () => {
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, 1);
    const dataSource = host.app.get(DataSource);
    const [{ id }] = await dataSource.getRepository(DeliveryEntity).find();
    const now = new Date();
    const [held] = await host.app
      .get(DeliveryStore)
      .claim([id], now, new Date(now.getTime() + CLAIM_LEASE_MS));
    await new Promise((resolve) => setTimeout(resolve, RETENTION_MS + 100));

    // The worker's own record statement, left uncommitted: a failed attempt, retried later.
    const [record] = recordStatements(
      new SqlDialect(dataSource),
      [attemptOutcome(held, new Date(now.getTime() + 60_000))],
      new Date(),
    );
    await worker.query('BEGIN');
    await worker.query(record.sql, record.params);
    const purged = host.app.get(EventRetention).purge();
    await eventually(async () => {
      const rows: { waiting: string }[] = await dataSource.query(
        `SELECT COUNT(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      return Number(rows[0].waiting) > 0;
    });
    await worker.query('COMMIT');

    await expect(purged).resolves.toBe(1);
    expect(await dataSource.getRepository(DeliveryEntity).countBy({ id })).toBe(0);
    expect(await dataSource.getRepository(AttemptEntity).countBy({ deliveryId: id })).toBe(0);
    expect(await dataSource.getRepository(PendingDeliveryEntity).countBy({ deliveryId: id })).toBe(0);
  });
});
