import { DataSource } from 'typeorm';
import { SqlDialect } from '../lib/database/sql-dialect.js';
import { CLAIM_ON_POSTGRES, claimedOnSqlite, DeliveryStore } from '../lib/deliveries/delivery-store.js';
import { DeliveryEntity, EventEntity } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_claim_bodies';
const ENDPOINTS = 5;
const EVENTS = 2;

/**
 * A claim of an event's deliveries to many endpoints: the database answers the event's body once,
 * and every delivery is sent with it. The host runs no worker, so only the test claims.
 */
describe('the bodies a claim reads', () => {
  let host: TestHost;
  let dataSource: DataSource;
  let ids: string[];

  beforeEach(async () => {
    host = await createTestHost({ module: { worker: false } });
    dataSource = host.app.get(DataSource);
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    for (let i = 0; i < ENDPOINTS; i++) await createEndpoint(client, `http://127.0.0.1:9/hook/${i}`);
    await publishResults(host, ACCOUNT, EVENTS);
    ids = (await dataSource.getRepository(DeliveryEntity).find()).map((delivery) => delivery.id);
    expect(ids).toHaveLength(ENDPOINTS * EVENTS);
  });

  afterEach(() => host.close());

  /** The rows the database answers to the claim of every delivery, as the store runs it. */
  async function claimRows(): Promise<{ event_id: string; payload: string | null }[]> {
    const sql = new SqlDialect(dataSource);
    const runner = dataSource.createQueryRunner();
    try {
      if (sql.postgres) {
        const now = new Date();
        const { records } = await runner.query(
          CLAIM_ON_POSTGRES,
          [new Date(now.getTime() + 60_000), now, ids, now],
          true,
        );
        return records as { event_id: string; payload: string | null }[];
      }
      return await runner.query(claimedOnSqlite(sql, ids.length), ids);
    } finally {
      await runner.release();
    }
  }

  it("carries each event's body in one row, not in each of its deliveries", async () => {
    const rows = await claimRows();
    expect(rows).toHaveLength(ENDPOINTS * EVENTS);
    const bodies = rows.filter((row) => row.payload !== null).map((row) => row.event_id);
    expect(bodies.sort()).toEqual([...new Set(rows.map((row) => row.event_id))].sort());
  });

  it('gives every delivery claimed the body of its event', async () => {
    const events = await dataSource.getRepository(EventEntity).find();
    const bodyOf = new Map(events.map((event) => [event.id, event.payload]));
    const now = new Date();
    const claimed = await host.app.get(DeliveryStore).claim(ids, now, new Date(now.getTime() + 60_000));
    expect(claimed).toHaveLength(ENDPOINTS * EVENTS);
    for (const delivery of claimed) expect(delivery.payload).toBe(bodyOf.get(delivery.eventId));
  });

  it('gives none a body once its event is purged', async () => {
    await dataSource.query('DELETE FROM interview_events');
    const now = new Date();
    const claimed = await host.app.get(DeliveryStore).claim(ids, now, new Date(now.getTime() + 60_000));
    expect(claimed).toHaveLength(ENDPOINTS * EVENTS);
    expect(claimed.map((delivery) => delivery.payload)).toEqual(Array(ENDPOINTS * EVENTS).fill(null));
  });
});
