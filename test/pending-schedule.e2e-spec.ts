import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { DeliveryProcessor } from '../lib/delivery-engine/delivery-processor.js';
import { DeliveryQueue } from '../lib/delivery-engine/delivery-queue.js';
import { DeliverySweeper } from '../lib/delivery-engine/delivery-sweeper.js';
import { INSTALLATION_ID } from '../lib/installation/installation-id.js';
import { type ApiClient, apiClient, sleep } from './support/api-client.js';
import { ClockAhead } from './support/clock-ahead.js';
import { TestDatabase } from './support/database.js';
import type { TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';
import {
  countByWebhookId,
  countQueueKeys,
  createEndpoint,
  deleteQueueKeys,
  deliveryOf,
  listAllDeliveries,
  publishResults,
  REDIS,
  TEST_WEBHOOKS,
} from './support/webhooks.js';
import { closedAfterEachTest } from './support/per-test.js';

/**
 * The pending deliveries' schedule (interview_pending_deliveries) is what the sweeper and the drop
 * of an endpoint's retries look through: a pending delivery missing from it would never be sent
 * again once its queue job is lost, and a finished one left in it would be swept for nothing.
 */
const { hosts, receivers, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_schedule';

async function clientOf(host: TestHost): Promise<ApiClient> {
  return apiClient(host, await host.createKey(ACCOUNT, 'test'));
}

interface ScheduleRow {
  id: string;
  status: string;
  due: string | null;
  scheduled: string | null;
}

/**
 * Every delivery whose schedule disagrees with it: a pending one without its row or due at another
 * time, or a finished one with a row; and rows of no delivery.
 */
async function scheduleMismatches(host: TestHost): Promise<ScheduleRow[]> {
  const dataSource = host.app.get(DataSource);
  const text = (column: string): string =>
    dataSource.options.type === 'postgres' ? `CAST(${column} AS text)` : column;
  const rows: ScheduleRow[] = await dataSource.query(
    `SELECT d.id, d.status, ${text('d.next_attempt_at')} AS due, ${text('p.next_attempt_at')} AS scheduled
     FROM interview_webhook_deliveries d LEFT JOIN interview_pending_deliveries p ON p.delivery_id = d.id
     UNION ALL
     SELECT p.delivery_id, 'none', NULL, ${text('p.next_attempt_at')} FROM interview_pending_deliveries p
     WHERE NOT EXISTS (SELECT 1 FROM interview_webhook_deliveries d WHERE d.id = p.delivery_id)`,
  );
  return rows.filter((row) =>
    row.status === 'pending' ? row.scheduled === null || row.scheduled !== row.due : row.scheduled !== null,
  );
}

async function scheduledCount(host: TestHost): Promise<number> {
  const [{ count }]: { count: number | string }[] = await host.app
    .get(DataSource)
    .query('SELECT COUNT(*) AS count FROM interview_pending_deliveries');
  return Number(count);
}

describe('the pending deliveries schedule', () => {
  it('holds exactly the pending deliveries, each at its due time, through sends, retries, replays, disables and deletes', async () => {
    // Retries far enough apart to look at the schedule while they wait.
    const host = await boot({ module: { webhooks: { ...TEST_WEBHOOKS, retryScheduleMs: [60_000] } } });
    const client = await clientOf(host);
    const ok = await createEndpoint(client, (await receivers.start()).url);
    const failing = await createEndpoint(
      client,
      (await receivers.start((_req, _i, res) => res.writeHead(500).end('down'))).url,
    );
    const gone = await createEndpoint(
      client,
      (await receivers.start((_req, _i, res) => res.writeHead(410).end('gone'))).url,
    );
    const toDelete = await createEndpoint(
      client,
      (await receivers.start((_req, _i, res) => res.writeHead(503).end('busy'))).url,
    );
    await publishResults(host, ACCOUNT, 5);
    expect(await scheduledCount(host)).toBeGreaterThan(0);

    await eventually(async () => {
      const [sent, retrying, refused, waiting] = await Promise.all(
        [ok, failing, gone, toDelete].map((endpoint) => listAllDeliveries(client, endpoint.id)),
      );
      return sent.every((d) => d.status === 'succeeded') &&
        [...retrying, ...waiting].every((d) => d.status === 'pending' && d.attempt === 1) &&
        refused.every((d) => d.status === 'failed')
        ? true
        : undefined;
    });
    // The retries wait in the schedule, due when the deliveries say.
    expect(await scheduledCount(host)).toBe(10);
    expect(await scheduleMismatches(host)).toEqual([]);

    const replayed = await client.post(
      `/v1/webhook_endpoints/${ok.id}/deliveries/${(await listAllDeliveries(client, ok.id))[0].id}/replay`,
    );
    expect(replayed.status).toBe(201);
    expect((await client.post(`/v1/webhook_endpoints/${ok.id}/test`)).status).toBe(201);
    await deliveryOf(client, ok.id, replayed.body.event_id as string, (d) => d.status === 'succeeded');
    await eventually(async () =>
      (await listAllDeliveries(client, ok.id)).every((d) => d.status === 'succeeded') ? true : undefined,
    );

    expect((await client.patch(`/v1/webhook_endpoints/${failing.id}`, { disabled: true })).status).toBe(200);
    expect((await client.delete(`/v1/webhook_endpoints/${toDelete.id}`)).status).toBe(200);
    expect(await scheduledCount(host)).toBe(0);
    expect(await scheduleMismatches(host)).toEqual([]);
  });

  it('gives a job that carries a retry before it is due nothing to claim (a stale or duplicate job)', async () => {
    const host = await boot({ module: { webhooks: { ...TEST_WEBHOOKS, retryScheduleMs: [5_000] } } });
    const receiver = await receivers.start((_req, _index, res) => res.writeHead(500).end('down'));
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const [event] = await publishResults(host, ACCOUNT, 1);
    const pending = await deliveryOf(client, endpoint.id, event.id, (d) => d.attempt === 1);
    expect(pending.status).toBe('pending');

    expect(await host.app.get(DeliveryProcessor).take([pending.id])).toBe(0);
    await sleep(300);
    expect(receiver.requests).toHaveLength(1);
    expect((await deliveryOf(client, endpoint.id, event.id, () => true)).attempt).toBe(1);
  });

  it('sends a retry whose queued job Redis lost, once the sweeper finds it in the schedule', async () => {
    const db = await TestDatabase.create();
    const webhooks = { ...TEST_WEBHOOKS, retryScheduleMs: [500] };
    const first = await boot({ db, keepDatabase: true, module: { webhooks } });
    const receiver = await receivers.start((_req, index, res) =>
      res.writeHead(index === 0 ? 500 : 200).end(index === 0 ? 'down' : 'ok'),
    );
    const key = await first.createKey(ACCOUNT, 'test');
    const endpoint = await createEndpoint(apiClient(first, key), receiver.url);
    const [event] = await publishResults(first, ACCOUNT, 1);
    const client = apiClient(first, key);
    await deliveryOf(client, endpoint.id, event.id, (d) => d.attempt === 1 && d.status === 'pending');

    // The worker goes, and Redis loses the retry's delayed job.
    await hosts.closeNow(first);
    expect(await deleteQueueKeys(db.name)).toBeGreaterThan(0);
    expect(await countQueueKeys(db.name)).toBe(0);
    await sleep(600);
    expect(receiver.requests).toHaveLength(1);

    const second = await boot({ db, module: { webhooks: { ...webhooks, sweepIntervalMs: 300 } } });
    const delivery = await deliveryOf(
      apiClient(second, key),
      endpoint.id,
      event.id,
      (d) => d.status === 'succeeded',
    );
    expect(delivery.attempt).toBe(2);
    expect(receiver.requests).toHaveLength(2);
  });
});

describe('a sweep', () => {
  // Jobs of 10 deliveries: a sweep's page is 50 jobs' worth, 500 deliveries.
  // A deadline no loaded machine reaches: an attempt that timed out is sent again, which would
  // read as a second send of the sweep's.
  const webhooks = { ...TEST_WEBHOOKS, batchSize: 10, sweepIntervalMs: 60_000, timeoutMs: 15_000 };
  const EVENTS = 1_200;

  /** A host on `db` that publishes EVENTS to one endpoint and sends nothing; and a receiver. */
  async function backlog(db: TestDatabase) {
    const api = await boot({ db, keepDatabase: true, module: { worker: false, webhooks } });
    const receiver = await receivers.start();
    const key = await api.createKey(ACCOUNT, 'test');
    await createEndpoint(apiClient(api, key), receiver.url);
    await publishResults(api, ACCOUNT, EVENTS);
    await eventually(async () => ((await queuedIds(api)).length === EVENTS ? true : undefined));
    return { receiver };
  }

  /** The delivery ids the queue's waiting jobs carry. */
  async function queuedIds(host: TestHost): Promise<string[]> {
    const jobs = await host.app.get(DeliveryQueue).queue.getWaiting(0, -1);
    return jobs.flatMap((job) => job.data.ids);
  }

  /** A host whose clock is past every delivery's due time and the sweep interval; it sends nothing. */
  const sweeperOn = (db: TestDatabase): Promise<TestHost> =>
    boot({ db, keepDatabase: true, module: { worker: false, webhooks }, clock: new ClockAhead(120_000) });

  it('queues the whole backlog again at once when Redis has lost it, page after page', async () => {
    const db = await TestDatabase.create();
    const { receiver } = await backlog(db);
    expect(await deleteQueueKeys(db.name)).toBeGreaterThan(0);

    const sweeper = await sweeperOn(db);
    expect(await sweeper.app.get(DeliverySweeper).sweep()).toBe(EVENTS);
    const queued = await queuedIds(sweeper);
    expect(queued).toHaveLength(EVENTS);
    expect(new Set(queued).size).toBe(EVENTS);

    // A worker (which does not sweep in this test) sends each of them once.
    await boot({ db, module: { webhooks } });
    await receiver.waitFor(EVENTS, 30_000);
    await sleep(300);
    const counts = countByWebhookId(receiver.requests);
    expect(counts.size).toBe(EVENTS);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
  });

  it('is taken by one worker process at a time: two sweeping at once queue the lost backlog once', async () => {
    const db = await TestDatabase.create();
    await backlog(db);
    expect(await deleteQueueKeys(db.name)).toBeGreaterThan(0);

    const [first, second] = [await sweeperOn(db), await sweeperOn(db)];
    const swept = await Promise.all(
      [first, second].map((host) => host.app.get(DeliverySweeper).sweepInTurn()),
    );
    expect([...swept].sort((a, b) => a - b)).toEqual([0, EVENTS]);
    expect(await queuedIds(first)).toHaveLength(EVENTS);
    // The turn is one key that expires within most of an interval (60 s here), for whoever comes next.
    const redis = new Redis(REDIS);
    try {
      const ttl = await redis.pttl(
        `${db.name}:${first.app.get(INSTALLATION_ID)}:webhook-deliveries:sweep-turn`,
      );
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(48_000);
    } finally {
      redis.disconnect();
    }
  });

  it('takes one page while the queue could still be carrying the overdue deliveries', async () => {
    const db = await TestDatabase.create();
    await backlog(db);
    const sweeper = await sweeperOn(db);
    expect(await sweeper.app.get(DeliverySweeper).sweep()).toBe(500);
    expect(await queuedIds(sweeper)).toHaveLength(EVENTS + 500);
  });
});
