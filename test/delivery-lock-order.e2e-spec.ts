import pg from 'pg';
import { DataSource } from 'typeorm';
import { DeliveryEntity } from '../lib/index.js';
import { CLAIM_LEASE_MS } from '../lib/interview-api.tuning.js';
import type { ClaimedDelivery } from '../lib/delivery-store/claimed-delivery.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { EventRetention } from '../lib/events/event-retention.js';
import { apiClient, type ApiClient } from './support/api-client.js';
import { attemptOutcome } from './support/outcomes.js';
import { PG, TestDatabase } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_lock_order';
const RETENTION_MS = 500;
/** A failing streak rule that disables nothing within a test. */
const NO_DISABLE = { disableAfterMs: 3_600_000, pauseMs: 3_600_000 };

/**
 * On PostgreSQL, the statements that lock many deliveries at once (a purge, a record) lock them in
 * id order, so that two of them never each hold a delivery the other waits for. A soak of steady
 * failures with a short retention had the purge deadlock with records and with disables: the purge
 * locked the expired deliveries in the order its plan read them.
 *
 * Each test holds the later of two deliveries in a transaction of its own, stored so that a scan
 * reads it first, and starts the statement: taking them in id order, it locks the first and waits
 * for the second; in any other, it waits holding nothing.
 */
describe('statements locking many deliveries (PostgreSQL)', () => {
  let host: TestHost;
  let holder: pg.Client;
  let dataSource: DataSource;
  let first: string;
  let second: string;
  let client: ApiClient;

  beforeEach(async () => {
    const db = await TestDatabase.create('postgres');
    host = await createTestHost({ db, module: { worker: false, eventRetentionMs: RETENTION_MS } });
    holder = new pg.Client({ ...PG, options: `-c search_path=${db.name}` });
    await holder.connect();
    dataSource = host.app.get(DataSource);
    client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, 2);
    const ids = (await dataSource.getRepository(DeliveryEntity).find()).map((delivery) => delivery.id).sort();
    [first, second] = ids;
    // Rewritten in place: its new version comes after the other one's on the page, so a scan in
    // stored order reads the second delivery first.
    await dataSource.query(`UPDATE interview_webhook_deliveries SET updated_at = updated_at WHERE id = $1`, [
      first,
    ]);
  });

  afterEach(async () => {
    await holder.end();
    await host.close();
  });

  const holdSecond = async (): Promise<void> => {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM interview_webhook_deliveries WHERE id = $1 FOR UPDATE', [second]);
  };

  /** The endpoint, held by a transaction of the test's own (as a request or a record would). */
  const holdEndpoint = async (id: string): Promise<void> => {
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM interview_webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE', [id]);
  };

  const theEndpoint = async (): Promise<{ id: string }> =>
    ((await client.get('/v1/webhook_endpoints')).body.data as { id: string }[])[0];

  /** Until a statement waits for the holder (only this test's: the server is shared). */
  const waitingForLock = async (): Promise<void> => {
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await eventually(async () => {
      const waiting: { count: string }[] = await dataSource.query(
        'SELECT COUNT(*) AS count FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
        [rows[0].pid],
      );
      return Number(waiting[0].count) > 0;
    });
  };

  /** Whether the first delivery is locked now (a lock that does not wait fails). */
  const firstIsLocked = async (): Promise<boolean> => {
    try {
      await dataSource.query('SELECT id FROM interview_webhook_deliveries WHERE id = $1 FOR UPDATE NOWAIT', [
        first,
      ]);
      return false;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return true;
      throw error;
    }
  };

  it('a purge locks the expired deliveries in id order', async () => {
    await new Promise((resolve) => setTimeout(resolve, RETENTION_MS + 100));
    await holdSecond();
    const purged = host.app.get(EventRetention).purge();
    await waitingForLock();

    expect(await firstIsLocked()).toBe(true);
    await holder.query('COMMIT');
    await expect(purged).resolves.toBe(2);
  });

  /** Both deliveries claimed, in the order given. */
  const claimBoth = async (): Promise<ClaimedDelivery[]> => {
    const now = new Date();
    const held = await host.app
      .get(DeliveryStore)
      .claim([second, first], now, new Date(now.getTime() + CLAIM_LEASE_MS));
    const byId = new Map(held.map((delivery) => [delivery.id, delivery]));
    return [second, first].map((id) => byId.get(id)!);
  };

  it('a record with a failure locks its deliveries in id order, whatever the order of its outcomes', async () => {
    const store = host.app.get(DeliveryStore);
    const held = await claimBoth();
    await holdSecond();
    const recording = store.record(
      held.map((delivery) => attemptOutcome(delivery, new Date(Date.now() + 3_600_000))),
      new Date(),
      NO_DISABLE,
    );
    await waitingForLock();

    expect(await firstIsLocked()).toBe(true);
    await holder.query('COMMIT');
    await expect(recording).resolves.toEqual([]);
    expect(
      (await dataSource.getRepository(DeliveryEntity).find()).map((delivery) => delivery.status),
    ).toEqual(['pending', 'pending']);
  });

  it('a record of successes ending a failing streak waits for the endpoint before its deliveries', async () => {
    const endpoint = await theEndpoint();
    await dataSource.query('UPDATE interview_webhook_endpoints SET failing_since = $1 WHERE id = $2', [
      new Date(Date.now() - 60_000),
      endpoint.id,
    ]);
    const held = await claimBoth();
    await holdEndpoint(endpoint.id);
    const recording = host.app.get(DeliveryStore).record(
      held.map((delivery) => attemptOutcome(delivery)),
      new Date(),
      NO_DISABLE,
    );
    await waitingForLock();

    expect(await firstIsLocked()).toBe(false);
    await holder.query('COMMIT');
    await expect(recording).resolves.toEqual([]);
  });

  it('a renewal locks its claims in id order', async () => {
    const held = await claimBoth();
    await holdSecond();
    const renewing = host.app.get(DeliveryStore).renew(held, new Date(Date.now() + CLAIM_LEASE_MS));
    await waitingForLock();

    expect(await firstIsLocked()).toBe(true);
    await holder.query('COMMIT');
    await expect(renewing).resolves.toBeUndefined();
  });

  it('deleting an endpoint locks it before its deliveries, as a record does', async () => {
    const endpoint = await theEndpoint();
    await holdEndpoint(endpoint.id);
    const deleting = Promise.resolve(client.delete(`/v1/webhook_endpoints/${endpoint.id}`));
    await waitingForLock();

    expect(await firstIsLocked()).toBe(false);
    await holder.query('COMMIT');
    expect((await deleting).status).toBe(200);
  });

  it('disabling an endpoint locks its pending deliveries in id order', async () => {
    const endpoint = await theEndpoint();
    await holdSecond();
    // Sent now: a supertest request starts once it is awaited.
    const disabling = Promise.resolve(
      client.patch(`/v1/webhook_endpoints/${endpoint.id}`, { disabled: true }),
    );
    await waitingForLock();

    expect(await firstIsLocked()).toBe(true);
    await holder.query('COMMIT');
    expect((await disabling).status).toBe(200);
  });
});
