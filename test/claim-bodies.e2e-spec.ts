import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { SqlDialect } from '../lib/database/sql-dialect.js';
import type { DeliveryOutcome } from '../lib/delivery-store/claimed-delivery.js';
import { idList } from '../lib/delivery-store/bound-statements.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import * as PG from '../lib/delivery-store/postgres-statements.js';
import * as SQLITE from '../lib/delivery-store/sqlite-statements.js';
import { DeliveryEntity, EventEntity } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, OpenReceivers } from './support/receiver.js';
import { createEndpoint, publishResults, TEST_WEBHOOKS } from './support/webhooks.js';

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
  let endpointIds: string[];

  beforeEach(async () => {
    host = await createTestHost({ module: { worker: false } });
    dataSource = host.app.get(DataSource);
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    endpointIds = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      endpointIds.push((await createEndpoint(client, `http://127.0.0.1:9/hook/${i}`)).id);
    }
    await publishResults(host, ACCOUNT, EVENTS);
    ids = (await dataSource.getRepository(DeliveryEntity).find()).map((delivery) => delivery.id);
    expect(ids).toHaveLength(ENDPOINTS * EVENTS);
  });

  afterEach(() => host.close());

  interface Row {
    event_id: string;
    endpoint_id: string;
    payload: string | null;
  }

  /**
   * The rows the database answers to the claim of every delivery, as the store runs it, leaving
   * the bodies of `unread` endpoints unread.
   */
  async function claimRows(unread: string[] = []): Promise<Row[]> {
    const sql = new SqlDialect(dataSource);
    const runner = dataSource.createQueryRunner();
    try {
      if (sql.postgres) {
        const now = new Date();
        const { records } = await runner.query(
          PG.CLAIM,
          [new Date(now.getTime() + 60_000), now, ids, now, unread],
          true,
        );
        return records as Row[];
      }
      return await runner.query(SQLITE.CLAIMED(idList(unread.length), idList(ids.length)), [
        ...unread,
        ...ids,
      ]);
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

  it("reads no body for endpoints without room, and each event's body once for the others", async () => {
    const [open, ...full] = endpointIds;
    const rows = await claimRows(full);
    expect(rows).toHaveLength(ENDPOINTS * EVENTS);
    const withBody = rows.filter((row) => row.payload !== null);
    expect(withBody.map((row) => row.endpoint_id)).toEqual(Array(EVENTS).fill(open));
    expect(new Set(withBody.map((row) => row.event_id)).size).toBe(EVENTS);
  });

  it('gives back unread the deliveries whose endpoints are all without room', async () => {
    const now = new Date();
    const claimed = await host.app
      .get(DeliveryStore)
      .claim(ids, now, new Date(now.getTime() + 60_000), endpointIds);
    expect(claimed).toHaveLength(ENDPOINTS * EVENTS);
    expect(claimed.every((delivery) => delivery.payload === null && delivery.bodyUnread)).toBe(true);
  });

  it('gives none a body once its event is purged', async () => {
    await dataSource.query('DELETE FROM interview_events');
    const now = new Date();
    const claimed = await host.app.get(DeliveryStore).claim(ids, now, new Date(now.getTime() + 60_000));
    expect(claimed).toHaveLength(ENDPOINTS * EVENTS);
    expect(claimed.map((delivery) => delivery.payload)).toEqual(Array(ENDPOINTS * EVENTS).fill(null));
  });
});

describe('a worker claiming for an endpoint without room', () => {
  const receivers = new OpenReceivers();
  let host: TestHost;

  beforeEach(async () => {
    // One send slot: the endpoint holds 16 sends until its pace is known, and the rest go back.
    host = await createTestHost({
      module: { webhooks: { ...TEST_WEBHOOKS, concurrency: 1, timeoutMs: 10_000 } },
    });
  });
  afterEach(async () => {
    await host.close();
    await receivers.closeAll();
  });

  it('leaves the bodies unread of what it gives back, and gives each of them back unsent', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const receiver = await receivers.start(
      (_req, _index, res) => void held.then(() => res.writeHead(200).end()),
    );
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, receiver.url);
    const store = host.app.get(DeliveryStore);
    const record = store.record.bind(store);
    const recorded: DeliveryOutcome[] = [];
    const spy = jest.spyOn(store, 'record').mockImplementation(async (outcomes, ...rest) => {
      recorded.push(...outcomes);
      return record(outcomes, ...rest);
    });
    try {
      await publishResults(host, ACCOUNT, 30);
      // Given back once the endpoint is full, then claimed again while it still is: unread.
      const unread = await eventually(async () => {
        const outcomes = recorded.filter((outcome) => outcome.delivery.bodyUnread);
        return outcomes.length > 0 ? outcomes : undefined;
      });
      expect(unread.map((outcome) => [outcome.attempted, outcome.status, outcome.error])).toEqual(
        Array(unread.length).fill([false, 'pending', null]),
      );
    } finally {
      release();
      spy.mockRestore();
    }
  });
});
