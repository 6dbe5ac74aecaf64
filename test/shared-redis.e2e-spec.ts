import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeliverySweeper } from '../lib/delivery-engine/delivery-sweeper.js';
import { INSTALLATION_ID } from '../lib/installation/installation-id.js';
import type { ApiEvent, DeliveryView } from '../lib/index.js';
import { type ApiClient, apiClient, sleep } from './support/api-client.js';
import { ClockAhead } from './support/clock-ahead.js';
import { DB_KIND, TestDatabase } from './support/database.js';
import type { TestHost, TestHostOptions } from './support/host-app.js';
import { closedAfterEachTest } from './support/per-test.js';
import { eventually, type Receiver, WAIT_MS } from './support/receiver.js';
import {
  countByWebhookId,
  countQueueKeys,
  createEndpoint,
  deleteQueueKeys,
  type EndpointWithSecret,
  listAllDeliveries,
  publishResults,
  TEST_WEBHOOKS,
} from './support/webhooks.js';

/**
 * Hosts with a database each may share one Redis and one queuePrefix (the default, say): each
 * installation (a database and the processes on it) has a delivery queue and a sweep turn of its
 * own, named after the id its database holds, and all the processes of one share them.
 */
const { hosts, receivers, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_shared_redis';
/** No sweep while a test runs (unless it asks for one): only the queue sends what is published. */
const NO_SWEEP = { ...TEST_WEBHOOKS, sweepIntervalMs: 600_000 };
const DEFAULT_QUEUE_PREFIX = 'interview-api';
const onPostgres = DB_KIND === 'postgres' ? it : it.skip;

/** Key prefixes in Redis and databases no host deletes when it closes (they are shared). */
const leftKeys = new Set<string>();
const leftDatabases: TestDatabase[] = [];
afterAll(async () => {
  for (const prefix of leftKeys) await deleteQueueKeys(prefix);
  for (const db of leftDatabases) await db.drop();
});

const installationOf = (host: TestHost): string =>
  host.app.get<typeof INSTALLATION_ID, string>(INSTALLATION_ID);

/**
 * A host on a database of its own with the module's default queuePrefix (not the test host's, the
 * database's name), the keys of its queue deleted after the file.
 */
async function hostWithDefaultPrefix(): Promise<TestHost> {
  const host = await boot({ module: { queuePrefix: undefined, webhooks: NO_SWEEP } });
  leftKeys.add(`${DEFAULT_QUEUE_PREFIX}:${installationOf(host)}`);
  return host;
}

interface Site {
  host: TestHost;
  client: ApiClient;
  receiver: Receiver;
  endpoint: EndpointWithSecret;
}

/** A key, a receiver of its own and an endpoint on it, for `host`. */
async function siteOf(host: TestHost): Promise<Site> {
  const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
  const receiver = await receivers.start();
  return { host, client, receiver, endpoint: await createEndpoint(client, receiver.url) };
}

/** The endpoint's deliveries once `count` of them have succeeded, or as they are after `timeoutMs`. */
async function deliveriesOnceSent(site: Site, count: number, timeoutMs = WAIT_MS): Promise<DeliveryView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const deliveries = await listAllDeliveries(site.client, site.endpoint.id);
    const sent = deliveries.length === count && deliveries.every((d) => d.status === 'succeeded');
    if (sent || Date.now() > deadline) return deliveries;
    await sleep(100);
  }
}

/** Every delivery of the site's events succeeded at its first attempt; its receiver got each once. */
async function expectEachSentOnce(site: Site, events: readonly ApiEvent[]): Promise<void> {
  const deliveries = await deliveriesOnceSent(site, events.length);
  const states = deliveries.map((d) => `${d.status} at attempt ${d.attempt}`);
  expect(states).toEqual(events.map(() => 'succeeded at attempt 1'));
  // A late duplicate would arrive just after.
  await sleep(300);
  const counts = countByWebhookId(site.receiver.requests);
  expect([...counts.keys()].sort()).toEqual(events.map((event) => event.id).sort());
  expect([...counts.values()].every((count) => count === 1)).toBe(true);
}

describe('hosts on databases of their own, on one Redis with the default queuePrefix', () => {
  it('each send every event they publish to their own receiver, exactly once, and leave none pending', async () => {
    const sites = await Promise.all(
      [hostWithDefaultPrefix(), hostWithDefaultPrefix()].map(async (host) => siteOf(await host)),
    );
    expect(installationOf(sites[0].host)).not.toBe(installationOf(sites[1].host));

    // Many small publishes on both at once: many jobs, for whichever worker takes them first.
    const events: ApiEvent[][] = sites.map(() => []);
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        sites.map(async (site, i) => events[i].push(...(await publishResults(site.host, ACCOUNT, 5)))),
      );
    }
    for (const [i, site] of sites.entries()) await expectEachSentOnce(site, events[i]);
  });
});

describe('hosts on databases of their own, on one Redis with one explicit queuePrefix', () => {
  it('each take their own sweep turn, and send their own deliveries once Redis has lost them', async () => {
    const queuePrefix = `shared_${randomBytes(4).toString('hex')}`;
    leftKeys.add(queuePrefix);
    const webhooks = { ...TEST_WEBHOOKS, sweepIntervalMs: 60_000 };
    const databases = [await TestDatabase.create(), await TestDatabase.create()];
    const on = (db: TestDatabase, options: TestHostOptions = {}): Promise<TestHost> =>
      boot({ db, ...options, module: { queuePrefix, webhooks, ...options.module } });

    const sites = await Promise.all(
      databases.map(async (db) => siteOf(await on(db, { keepDatabase: true, module: { worker: false } }))),
    );
    const events = await Promise.all(sites.map((site) => publishResults(site.host, ACCOUNT, 50)));
    // Redis loses both hosts' jobs (a flush of their keys).
    await sleep(500);
    expect(await deleteQueueKeys(queuePrefix)).toBeGreaterThan(0);
    expect(await countQueueKeys(queuePrefix)).toBe(0);

    // Sweepers that see every delivery overdue, asking for their turns at the same moment.
    const sweepers = await Promise.all(
      databases.map((db) =>
        on(db, { keepDatabase: true, module: { worker: false }, clock: new ClockAhead(120_000) }),
      ),
    );
    const swept = await Promise.all(
      sweepers.map((sweeper) => sweeper.app.get(DeliverySweeper).sweepInTurn()),
    );
    expect(swept).toEqual([50, 50]);

    // A worker on each database (the last host on it, which drops it) sends what its sweeper queued.
    await Promise.all(databases.map((db) => on(db)));
    for (const [i, site] of sites.entries()) await expectEachSentOnce(site, events[i]);
  });
});

describe('processes on one database', () => {
  /**
   * A database whose installation has no id yet (the processes starting on it create it), and a
   * host on it to change it through, started first.
   */
  async function withoutInstallation(): Promise<{ db: TestDatabase; first: TestHost }> {
    const db = await TestDatabase.create();
    leftDatabases.push(db);
    leftKeys.add(db.name);
    const first = await boot({ db, keepDatabase: true });
    await first.app.get(DataSource).query('DELETE FROM interview_installation');
    return { db, first };
  }

  /** API-only processes and a worker process starting together on `db`. */
  const startTogether = (db: TestDatabase, options: TestHostOptions = {}): Promise<TestHost[]> =>
    Promise.all(
      [false, false, false, true].map((worker) =>
        boot({ ...options, db, keepDatabase: true, module: { worker, webhooks: NO_SWEEP } }),
      ),
    );

  /** The worker (the last of `started`) sends what each API-only process publishes, once. */
  async function expectWorkerSendsAll(started: TestHost[]): Promise<void> {
    const site = await siteOf(started[0]);
    const apiOnly = started.slice(0, -1);
    const events = (await Promise.all(apiOnly.map((api) => publishResults(api, ACCOUNT, 20)))).flat();
    await expectEachSentOnce(site, events);
  }

  it('share one queue, even when they first start together: a worker process sends what API-only processes publish', async () => {
    const { db, first } = await withoutInstallation();
    await hosts.closeNow(first);
    const started = await startTogether(db);
    const ids = new Set(started.map(installationOf));
    expect(ids.size).toBe(1);
    expect(await started[0].app.get(DataSource).query('SELECT id FROM interview_installation')).toEqual([
      { id: [...ids][0] },
    ]);
    await expectWorkerSendsAll(started);
  });

  // Under REPEATABLE READ, PostgreSQL refuses (a serialization failure) rather than skips an
  // insert that waited for a row committed after it began.
  onPostgres('take the id another process is inserting as they start, under REPEATABLE READ', async () => {
    const { db, first } = await withoutInstallation();
    const other = first.app.get(DataSource).createQueryRunner();
    await other.startTransaction();
    await other.query("INSERT INTO interview_installation (singleton, id) VALUES (1, 'ins_other')");
    const starting = startTogether(db, { isolation: 'repeatable read' });
    // Until each starting process waits for the other's row.
    await eventually(async () => {
      const [{ waiting }]: { waiting: string }[] = await first.app
        .get(DataSource)
        .query(
          `SELECT COUNT(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
          ['INSERT INTO interview_installation%'],
        );
      return Number(waiting) === 4;
    });
    await other.commitTransaction();
    await other.release();
    await hosts.closeNow(first);

    const started = await starting;
    expect(started.map(installationOf)).toEqual(['ins_other', 'ins_other', 'ins_other', 'ins_other']);
    await expectWorkerSendsAll(started);
  });
});
