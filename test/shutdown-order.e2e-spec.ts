import { DataSource, IsNull, Not } from 'typeorm';
import { DeliveryEntity, type InterviewApiModuleOptions } from '../lib/index.js';
import { type ApiClient, apiClient, sleep } from './support/api-client.js';
import { TestDatabase } from './support/database.js';
import type { TestHost } from './support/host-app.js';
import { closedAfterEachTest } from './support/per-test.js';
import { warningsDuring } from './support/warnings.js';
import { eventually } from './support/receiver.js';
import { RedisProxy } from './support/redis-proxy.js';
import { createEndpoint, getDelivery, publishResults } from './support/webhooks.js';
import { expectSentAndGivenBack } from './support/outcomes.js';

/** Hosts and receivers of the running test. */
const { hosts, receivers, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_shutdown_order';

/**
 * An API-only host, which stays open to read the outcome, and a worker host on the same database
 * and queue whose imports list the module before TypeORM, as a host may: Nest then closes the
 * DataSource (TypeORM's onApplicationShutdown) before it runs the module's own shutdown hooks.
 */
async function bootHosts(
  webhooks: InterviewApiModuleOptions['webhooks'] = {},
): Promise<{ api: TestHost; worker: TestHost; client: ApiClient }> {
  const db = await TestDatabase.create();
  const api = await boot({ db, keepDatabase: true, module: { worker: false } });
  const worker = await boot({
    db,
    keepDatabase: true,
    moduleBeforeTypeOrm: true,
    module: { webhooks },
  });
  return { api, worker, client: apiClient(api, await api.createKey(ACCOUNT, 'test')) };
}

describe('app.close() of a host that imports the module before TypeORM', () => {
  it('records the send on the wire while the database is still open', async () => {
    const { api, worker, client } = await bootHosts();
    const receiver = await receivers.start((_req, _i, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 1000);
    });
    const endpoint = await createEndpoint(client, receiver.url);
    await publishResults(api, ACCOUNT, 1);
    await receiver.waitFor(1);

    const warnings = await warningsDuring(() => hosts.closeNow(worker));
    const [stored] = await api.app.get(DataSource).getRepository(DeliveryEntity).find();
    expect(stored).toMatchObject({ status: 'succeeded', attempt: 1, lockedUntil: null });
    const delivery = await getDelivery(client, endpoint.id, stored.id);
    expect(delivery.attempts).toEqual([expect.objectContaining({ attempt: 1, response_status: 200 })]);
    expect(receiver.requests).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('gives back the claims still waiting for a send slot, unclaimed and due at once', async () => {
    // One slot, and a receiver that takes a second to answer: nine of ten deliveries wait.
    const { api, worker, client } = await bootHosts({ concurrency: 1 });
    const receiver = await receivers.start((_req, _i, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 1000);
    });
    await createEndpoint(client, receiver.url);
    await publishResults(api, ACCOUNT, 10);
    const deliveries = api.app.get(DataSource).getRepository(DeliveryEntity);
    await receiver.waitFor(1);
    await eventually(async () => (await deliveries.count({ where: { lockedUntil: Not(IsNull()) } })) === 10);

    const warnings = await warningsDuring(() => hosts.closeNow(worker));
    const stored = await deliveries.find();
    expectSentAndGivenBack(stored, 1, 9);
    expect(receiver.requests).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  describe('while Redis stalls', () => {
    let proxy: RedisProxy | null = null;
    afterEach(async () => {
      await proxy?.stop();
      proxy = null;
    });

    it('begins no sweep once closed, though the sweep was waiting for its turn', async () => {
      proxy = await RedisProxy.start();
      const host = await boot({
        moduleBeforeTypeOrm: true,
        module: { redis: { host: '127.0.0.1', port: proxy.port }, webhooks: { sweepIntervalMs: 1000 } },
      });
      // Redis answers nothing: the next sweep waits up to 2 s for its turn.
      proxy.stall();
      await sleep(1100);

      const warnings = await warningsDuring(async () => {
        const started = Date.now();
        await hosts.closeNow(host);
        expect(Date.now() - started).toBeLessThan(5000);
        // Past the end of that wait.
        await sleep(2500);
      });
      expect(warnings).toEqual([]);
    });
  });
});
