import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import { DataSource, IsNull, Not } from 'typeorm';
import { DeliveryEntity, EventPublisher, type ApiEvent, type DeliveryView } from '../lib/index.js';
import { CLAIM_LEASE_MS } from '../lib/interview-api.tuning.js';
import { DeliveryDispatcher } from '../lib/delivery-engine/delivery-dispatcher.js';
import { DeliveryQueue } from '../lib/delivery-engine/delivery-queue.js';
import { DeliverySweeper } from '../lib/delivery-engine/delivery-sweeper.js';
import { RECORD_RETRY_PAUSES_MS } from '../lib/interview-api.tuning.js';
import { type ApiClient, apiClient, sleep } from './support/api-client.js';
import { ClockAhead } from './support/clock-ahead.js';
import { TestDatabase } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver, WAIT_MS } from './support/receiver.js';
import { RedisProxy } from './support/redis-proxy.js';
import { startTypeScriptChild } from './support/typescript-child.js';
import {
  countByWebhookId,
  countQueueKeys,
  createEndpoint,
  deleteQueueKeys,
  type EndpointWithSecret,
  deliveryOf,
  getDelivery,
  listAllDeliveries,
  publishResults,
  seededRandom,
  TEST_WEBHOOKS,
} from './support/webhooks.js';
import { closedAfterEachTest } from './support/per-test.js';
import { warningsDuring } from './support/warnings.js';
import { expectSentAndGivenBack } from './support/outcomes.js';

/** Hosts and receivers of the running test. */
const { hosts, receivers, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_reliability';

async function clientOf(host: TestHost): Promise<ApiClient> {
  return apiClient(host, await host.createKey(ACCOUNT, 'test'));
}

/** Every delivery of the endpoint, once all of them satisfy `done`. */
function allDeliveries(
  client: ApiClient,
  endpointId: string,
  count: number,
  done: (delivery: DeliveryView) => boolean,
  timeoutMs = WAIT_MS,
): Promise<DeliveryView[]> {
  return eventually(async () => {
    const deliveries = await listAllDeliveries(client, endpointId);
    return deliveries.length === count && deliveries.every(done) ? deliveries : undefined;
  }, timeoutMs);
}

const succeeded = (delivery: DeliveryView): boolean => delivery.status === 'succeeded';

function expectEachEventOnce(receiver: Receiver, events: readonly ApiEvent[]): void {
  const counts = countByWebhookId(receiver.requests);
  expect(counts.size).toBe(events.length);
  for (const event of events) expect(counts.get(event.id)).toBe(1);
  expect(receiver.requests).toHaveLength(events.length);
}

describe('several workers on one queue', () => {
  it('sends each of 200 events exactly once when two workers share the queue and the database', async () => {
    const db = await TestDatabase.create();
    // Small batches, so that both workers get jobs; the default deadline, so that a loaded machine
    // answering late is not a timeout, and its retry a second request.
    const webhooks = { ...TEST_WEBHOOKS, batchSize: 10, timeoutMs: 10_000 };
    const first = await boot({ db, keepDatabase: true, module: { webhooks } });
    const second = await boot({ db, module: { webhooks } });
    const receiver = await receivers.start();
    const client = await clientOf(first);
    const endpoint = await createEndpoint(client, receiver.url);

    const events = (
      await Promise.all([publishResults(first, ACCOUNT, 100), publishResults(second, ACCOUNT, 100)])
    ).flat();
    // Every delivery queued once more through each host: both workers race for the same ids, and
    // only the claim keeps a delivery from being sent twice.
    const ids = (
      await first.app
        .get(DataSource)
        .getRepository(DeliveryEntity)
        .find({ where: { endpointId: endpoint.id } })
    ).map((delivery) => ({ id: delivery.id, nextAttemptAt: null }));
    expect(ids).toHaveLength(200);
    first.app.get(DeliveryDispatcher).dispatch(ids);
    second.app.get(DeliveryDispatcher).dispatch(ids);

    const deliveries = await allDeliveries(client, endpoint.id, 200, succeeded);
    expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
    await sleep(500);
    expectEachEventOnce(receiver, events);
  });
});

describe('a host without a worker (worker: false)', () => {
  it('sends nothing itself; a worker started later on the same queue sends everything', async () => {
    const db = await TestDatabase.create();
    const api = await boot({ db, keepDatabase: true, module: { worker: false } });
    const receiver = await receivers.start();
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(api, ACCOUNT, 20);

    await sleep(1500);
    expect(receiver.requests).toHaveLength(0);
    const waiting = await listAllDeliveries(client, endpoint.id);
    expect(waiting).toHaveLength(20);
    expect(waiting.every((delivery) => delivery.status === 'pending' && delivery.attempt === 0)).toBe(true);

    await boot({ db });
    const deliveries = await allDeliveries(client, endpoint.id, 20, succeeded);
    expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
    expectEachEventOnce(receiver, events);
  });
});

describe('a publishing host whose clock runs ahead of the worker', () => {
  it("has its deliveries sent at once, not left to the sweeper as not yet due by the worker's clock", async () => {
    const db = await TestDatabase.create();
    // No sweep during the test: only the jobs the publishes enqueued can send anything.
    const webhooks = { ...TEST_WEBHOOKS, sweepIntervalMs: 600_000 };
    const api = await boot({
      db,
      keepDatabase: true,
      clock: new ClockAhead(500),
      module: { worker: false, webhooks },
    });
    await boot({ db, module: { webhooks } });
    const receiver = await receivers.start();
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(api, ACCOUNT, 10);

    await allDeliveries(client, endpoint.id, 10, succeeded);
    expectEachEventOnce(receiver, events);
  });
});

describe('the sweeper: the database, not Redis, keeps every delivery', () => {
  it('sends every pending delivery after the queue’s keys were deleted from Redis', async () => {
    const db = await TestDatabase.create();
    const api = await boot({ db, keepDatabase: true, module: { worker: false } });
    const receiver = await receivers.start();
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(api, ACCOUNT, 30);

    // The jobs reached Redis; then Redis loses them (this queue only: other tests share Redis).
    await eventually(async () => (await countQueueKeys(db.name)) > 0);
    await sleep(200);
    expect(await deleteQueueKeys(db.name)).toBeGreaterThan(0);
    expect(await countQueueKeys(db.name)).toBe(0);

    await boot({ db, module: { webhooks: { ...TEST_WEBHOOKS, sweepIntervalMs: 300 } } });
    const deliveries = await allDeliveries(client, endpoint.id, 30, succeeded);
    expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
    expectEachEventOnce(receiver, events);
  });

  it('publishes while Redis is unreachable, and a worker on the real Redis sends the deliveries later', async () => {
    const db = await TestDatabase.create();
    const api = await boot({
      db,
      keepDatabase: true,
      module: { worker: false, redis: { host: '127.0.0.1', port: 1 } },
    });
    const receiver = await receivers.start();
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);

    const started = Date.now();
    const events = await publishResults(api, ACCOUNT, 5);
    expect(Date.now() - started).toBeLessThan(5000);
    const stored = await listAllDeliveries(client, endpoint.id);
    expect(stored).toHaveLength(5);
    expect(stored.every((delivery) => delivery.status === 'pending')).toBe(true);

    await boot({ db, module: { webhooks: { ...TEST_WEBHOOKS, sweepIntervalMs: 300 } } });
    const deliveries = await allDeliveries(client, endpoint.id, 5, succeeded);
    expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
    expectEachEventOnce(receiver, events);
  });
});

/** A delivery worker in a child process of its own, on the database and queue of `db`. */
async function startWorkerProcess(db: TestDatabase, webhooks: object): Promise<ChildProcess> {
  const { child } = await startTypeScriptChild('./worker-process.ts', [
    db.kind,
    db.name,
    JSON.stringify(webhooks),
  ]);
  return child;
}

describe('a worker shut down while deliveries wait for a send slot', () => {
  it('records the send on the wire and gives the waiting ones back, due at once, for another worker', async () => {
    const db = await TestDatabase.create();
    // One slot, and a receiver that takes a second to answer: nine of ten deliveries wait.
    const webhooks = { ...TEST_WEBHOOKS, concurrency: 1 };
    const api = await boot({ db, keepDatabase: true, module: { worker: false } });
    const first = await boot({ db, keepDatabase: true, module: { webhooks } });
    const receiver = await receivers.start((_req, _i, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 1000);
    });
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(api, ACCOUNT, 10);
    const deliveries = api.app.get(DataSource).getRepository(DeliveryEntity);
    await receiver.waitFor(1);
    await eventually(async () => (await deliveries.count({ where: { lockedUntil: Not(IsNull()) } })) === 10);

    await hosts.closeNow(first);
    // Shutdown waited for the one on the wire only, and left nothing claimed.
    expect(receiver.requests).toHaveLength(1);
    const stored = await deliveries.find();
    expectSentAndGivenBack(stored, 1, 9);

    await boot({ db });
    await allDeliveries(client, endpoint.id, 10, succeeded);
    expectEachEventOnce(receiver, events);
  });
});

describe('a worker process killed in the middle of a send', () => {
  let worker: ChildProcess | null = null;
  afterEach(() => {
    worker?.kill('SIGKILL');
    worker = null;
  });

  it('leaves its claim to expire; another worker then sends the delivery once more and records it', async () => {
    const db = await TestDatabase.create();
    const api = await boot({ db, keepDatabase: true, module: { worker: false } });
    // The first request is never answered: the worker dies waiting for it.
    const receiver = await receivers.start((_req, index, res) => {
      if (index > 0) res.writeHead(200).end('ok');
    });
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);
    const webhooks = {
      ...TEST_WEBHOOKS,
      timeoutMs: 20_000,
      sweepIntervalMs: 300,
      concurrency: 4,
      batchSize: 10,
    };
    worker = await startWorkerProcess(db, webhooks);
    const [event] = await publishResults(api, ACCOUNT, 1);
    await receiver.waitFor(1);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker!.once('exit', resolve));

    // While the dead worker's claim lasts, a live worker neither sweeps nor sends the delivery.
    const patient = await boot({ db, keepDatabase: true, module: { webhooks } });
    await sleep(1500);
    expect(receiver.requests).toHaveLength(1);
    const [held] = await listAllDeliveries(client, endpoint.id);
    expect(held).toMatchObject({ status: 'pending', attempt: 0 });
    await hosts.closeNow(patient);

    // A worker that sees the claim expired sends the delivery again, with the same webhook-id.
    await boot({ db, module: { webhooks }, clock: new ClockAhead(CLAIM_LEASE_MS + 1000) });
    const [delivery] = await allDeliveries(client, endpoint.id, 1, succeeded);
    expect(delivery).toMatchObject({ id: held.id, attempt: 1, response_status: 200 });
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([event.id, event.id]);
    await sleep(1000);
    expect(receiver.requests).toHaveLength(2);
  });
});

/**
 * Makes every write of an outcome fail, as a database that went away between the claim and the
 * record would (the claim itself still goes through); answers how to undo it.
 */
async function refuseOutcomeWrites(host: TestHost): Promise<() => Promise<void>> {
  const dataSource = host.app.get(DataSource);
  if (host.db.kind === 'postgres') {
    await dataSource.query(
      `CREATE FUNCTION refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'database unavailable'; END $$`,
    );
    await dataSource.query(
      'CREATE TRIGGER refuse_record BEFORE UPDATE ON interview_webhook_deliveries FOR EACH ROW WHEN (NEW.attempt > OLD.attempt) EXECUTE FUNCTION refuse_record()',
    );
    return async () =>
      void (await dataSource.query('DROP TRIGGER refuse_record ON interview_webhook_deliveries'));
  }
  await dataSource.query(
    "CREATE TRIGGER refuse_record BEFORE UPDATE ON interview_webhook_deliveries FOR EACH ROW WHEN NEW.attempt > OLD.attempt BEGIN SELECT RAISE(ABORT, 'database unavailable'); END",
  );
  return async () => void (await dataSource.query('DROP TRIGGER refuse_record'));
}

describe('an outcome the database refuses to record', () => {
  const webhooks = { ...TEST_WEBHOOKS, sweepIntervalMs: 300, concurrency: 4, batchSize: 10 };

  /** An endpoint at a receiver, a worker, and one event sent whose outcome the database refuses. */
  async function sentButRefused() {
    const db = await TestDatabase.create();
    const api = await boot({ db, keepDatabase: true, module: { worker: false } });
    const first = await boot({ db, keepDatabase: true, module: { webhooks } });
    const receiver = await receivers.start();
    const client = await clientOf(api);
    const endpoint = await createEndpoint(client, receiver.url);
    const allowOutcomeWrites = await refuseOutcomeWrites(api);
    const [event] = await publishResults(api, ACCOUNT, 1);
    await receiver.waitFor(1);
    await sleep(1500);
    // Sent, but neither the attempt nor the outcome is stored; nothing is sent twice meanwhile.
    const [held] = await listAllDeliveries(client, endpoint.id);
    expect(held).toMatchObject({ status: 'pending', attempt: 0, response_status: null });
    expect((await getDelivery(client, endpoint.id, held.id)).attempts).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
    return { db, first, receiver, client, endpoint, event, held, allowOutcomeWrites };
  }

  it('records it once the database takes it again within the retries, and sends it once', async () => {
    const { receiver, client, endpoint, held, allowOutcomeWrites } = await sentButRefused();
    await allowOutcomeWrites();
    const [delivery] = await allDeliveries(client, endpoint.id, 1, succeeded);
    expect(delivery).toMatchObject({ id: held.id, attempt: 1, response_status: 200 });
    expect((await getDelivery(client, endpoint.id, held.id)).attempts).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
  });

  it('loses nothing when it refuses it past the retries: the delivery stays claimed and pending, and is sent again and recorded once its claim expires', async () => {
    const { db, first, receiver, client, endpoint, event, held, allowOutcomeWrites } = await sentButRefused();
    // Every write of the group has failed by then; its claim is left to expire.
    await sleep(RECORD_RETRY_PAUSES_MS.reduce((sum, ms) => sum + ms, 0) + 1000);
    expect(await listAllDeliveries(client, endpoint.id)).toMatchObject([{ status: 'pending', attempt: 0 }]);
    await allowOutcomeWrites();
    await hosts.closeNow(first);
    await boot({ db, module: { webhooks }, clock: new ClockAhead(CLAIM_LEASE_MS + 1000) });
    const [delivery] = await allDeliveries(client, endpoint.id, 1, succeeded);
    expect(delivery).toMatchObject({ id: held.id, attempt: 1, response_status: 200 });
    expect((await getDelivery(client, endpoint.id, held.id)).attempts).toHaveLength(1);
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([event.id, event.id]);
  });
});

/**
 * A worker host with two endpoints: one at a receiver that never answers, subscribed to
 * `result.ready`, and one at a receiver that answers at once, subscribed to `session.completed`.
 */
async function silentBesidePrompt(webhooks: typeof TEST_WEBHOOKS & { concurrency: number }) {
  const host = await boot({ db: await TestDatabase.create(), module: { webhooks } });
  const silent = await receivers.start(() => undefined);
  const prompt = await receivers.start();
  const client = await clientOf(host);
  const stalled = await createEndpoint(client, silent.url, ['result.ready']);
  const answered = await createEndpoint(client, prompt.url, ['session.completed']);
  return { host, silent, prompt, client, stalled, answered };
}

const attemptsMade = (deliveries: readonly DeliveryView[]): number =>
  deliveries.reduce((attempts, delivery) => attempts + delivery.attempt, 0);

describe('a receiver that never answers', () => {
  it('holds back its own deliveries only: the rest of each batch is recorded as soon as it is sent', async () => {
    const db = await TestDatabase.create();
    // Longer than the whole check below, so that no attempt to the silent receiver ends during it.
    const host = await boot({ db, module: { webhooks: { ...TEST_WEBHOOKS, timeoutMs: 20_000 } } });
    const silent = await receivers.start(() => undefined);
    const prompt = await receivers.start();
    const client = await clientOf(host);
    const stalled = await createEndpoint(client, silent.url);
    const answered = await createEndpoint(client, prompt.url);

    // Each event goes to both endpoints, so every batch holds deliveries to both.
    const events = await publishResults(host, ACCOUNT, 20);
    await allDeliveries(client, answered.id, 20, succeeded, 15_000);
    await silent.waitFor(20);
    const waiting = await listAllDeliveries(client, stalled.id);
    expect(waiting).toHaveLength(20);
    expect(waiting.every((delivery) => delivery.status === 'pending' && delivery.attempt === 0)).toBe(true);
    expectEachEventOnce(prompt, events);
    // Hung up on, the silent receiver's attempts end now rather than at their deadline.
    await silent.close();
  });

  it('cannot take the send slots of other endpoints, and gives back the claims beyond its share', async () => {
    // Two send slots, each held 3 s by an attempt to the silent receiver.
    const webhooks = { ...TEST_WEBHOOKS, concurrency: 2, timeoutMs: 3000 };
    const { host, silent, prompt, client, stalled, answered } = await silentBesidePrompt(webhooks);

    // Alone, the silent endpoint takes both slots and holds all 30 of its deliveries.
    await publishResults(host, ACCOUNT, 30, 'result.ready');
    await silent.waitFor(2);
    // Another endpoint halves its share: it may now hold 16 (one slot, 16 per slot) and gives
    // the rest back unsent. Once its two attempts time out, it gets one slot and the other
    // endpoint the other, through which all 10 deliveries go before the silent one's next deadline.
    const publishedAt = Date.now();
    const events = await publishResults(host, ACCOUNT, 10, 'session.completed');
    await allDeliveries(client, answered.id, 10, succeeded);
    expectEachEventOnce(prompt, events);

    const held = await listAllDeliveries(client, stalled.id);
    // With one queue for all endpoints, those 10 would have waited for the 30 silent attempts.
    expect(attemptsMade(held)).toBeLessThanOrEqual(4);
    expect(silent.requests.length).toBeLessThanOrEqual(4);
    const givenBack = held.filter(
      (delivery) =>
        delivery.status === 'pending' &&
        delivery.attempt === 0 &&
        delivery.next_attempt_at !== null &&
        Date.parse(delivery.next_attempt_at) > publishedAt + webhooks.timeoutMs,
    );
    expect(givenBack.length).toBeGreaterThanOrEqual(30 - 16);
    await silent.close();
  });

  it("cannot take another account's send slots through many endpoints of its own", async () => {
    // Two send slots, each held 3 s by an attempt to the silent receiver.
    const webhooks = { ...TEST_WEBHOOKS, concurrency: 2, timeoutMs: 3000 };
    const host = await boot({ db: await TestDatabase.create(), module: { webhooks } });
    const silent = await receivers.start(() => undefined);
    const prompt = await receivers.start();
    // One account with ten endpoints that never answer, three events each: 30 sends of 3 s.
    const noisy = await clientOf(host);
    for (let i = 0; i < 10; i++) await createEndpoint(noisy, silent.url);
    await publishResults(host, ACCOUNT, 3);
    await silent.waitFor(2);
    // Another account's deliveries get that account's share (one slot) once the first attempts
    // time out. Shared per endpoint, the slots went to the older sends of the ten endpoints first:
    // the other account's deliveries waited five deadlines.
    const quiet = apiClient(host, await host.createKey('acct_quiet', 'test'));
    const answered = await createEndpoint(quiet, prompt.url);
    const events = await publishResults(host, 'acct_quiet', 5);
    await allDeliveries(quiet, answered.id, 5, succeeded, 2 * webhooks.timeoutMs + 1000);
    expectEachEventOnce(prompt, events);
    await silent.close();
  });

  it('does not put off a burst to a fast endpoint at the pace of a send that would take the whole deadline', async () => {
    // Two send slots; the silent endpoint holds one of them for 3 s at a time.
    const webhooks = { ...TEST_WEBHOOKS, concurrency: 2, timeoutMs: 3000 };
    const { host, silent, prompt, client, answered } = await silentBesidePrompt(webhooks);
    await publishResults(host, ACCOUNT, 2, 'result.ready');
    await silent.waitFor(1);

    // The fast endpoint may hold 16 (one slot, 16 per slot) before any of its sends has ended; it
    // gives the rest back. Paced as if each send took the 3 s deadline they would come back one
    // every 3 s (the last after 10 minutes); they come back after one deadline, by when its
    // first sends have shown how fast it answers, and go out at that pace.
    const events = await publishResults(host, ACCOUNT, 200, 'session.completed');
    await allDeliveries(client, answered.id, 200, succeeded);
    expectEachEventOnce(prompt, events);
    await silent.close();
  });

  it('gives back the claims it filled the worker with once its first attempts time out', async () => {
    // The worker holds at most 32 deliveries (16 per send slot); jobs of 10.
    const webhooks = { ...TEST_WEBHOOKS, concurrency: 2, timeoutMs: 3000, batchSize: 10 };
    const { host, silent, prompt, client, stalled, answered } = await silentBesidePrompt(webhooks);

    // 60 deliveries to the silent endpoint: 32 claimed, the other jobs wait for room, and the
    // other endpoint's job behind them.
    await publishResults(host, ACCOUNT, 60, 'result.ready');
    await silent.waitFor(2);
    const events = await publishResults(host, ACCOUNT, 10, 'session.completed');
    // Its first two attempts time out at 3 s: at that pace it may hold two rounds of its share
    // (what it sends in two deadlines), so it gives back the rest, which lets the other job in. Its
    // next two attempts may have taken both slots meanwhile (nobody else waited for them): the
    // other endpoint then gets its slot when they end, at 6 s, well before the round after.
    await allDeliveries(client, answered.id, 10, succeeded);
    expectEachEventOnce(prompt, events);
    const held = await listAllDeliveries(client, stalled.id);
    expect(attemptsMade(held)).toBeLessThanOrEqual(4);
    expect(held.every((delivery) => delivery.status === 'pending')).toBe(true);
    await silent.close();
  });
});

describe('Redis going away and coming back', () => {
  let proxy: RedisProxy | null = null;

  /** A host on Redis through `proxy`, with an endpoint that has received 3 events already. */
  async function sendingThrough(through: RedisProxy): Promise<{
    host: TestHost;
    receiver: Receiver;
    client: ApiClient;
    endpoint: EndpointWithSecret;
    before: ApiEvent[];
  }> {
    const host = await boot({
      module: {
        redis: { host: '127.0.0.1', port: through.port },
        webhooks: { ...TEST_WEBHOOKS, sweepIntervalMs: 300 },
      },
    });
    const receiver = await receivers.start();
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const before = await publishResults(host, ACCOUNT, 3);
    await receiver.waitFor(3);
    return { host, receiver, client, endpoint, before };
  }
  afterEach(async () => {
    await proxy?.stop();
    proxy = null;
  });

  it('keeps publishing while its Redis is down, and sends everything once it is back', async () => {
    proxy = await RedisProxy.start();
    const { host, receiver, client, endpoint, before } = await sendingThrough(proxy);

    await proxy.stop();
    const during: ApiEvent[] = [];
    const warnings = await warningsDuring(async () => {
      const started = Date.now();
      during.push(...(await publishResults(host, ACCOUNT, 10)));
      expect(Date.now() - started).toBeLessThan(5000);
      // Publishes apart, each flushed on its own: one warning for the outage, not one a flush.
      for (let round = 0; round < 5; round++) {
        await sleep(60);
        during.push(...(await publishResults(host, ACCOUNT, 1)));
      }
      await sleep(1000);
    });
    expect(receiver.requests).toHaveLength(3);
    expect(warnings.filter((warning) => warning.includes('enqueue'))).toHaveLength(1);
    const workerWarnings = warnings.filter((warning) => warning.startsWith('Delivery worker'));
    expect(new Set(workerWarnings).size).toBe(workerWarnings.length);

    await proxy.start();
    const deliveries = await allDeliveries(client, endpoint.id, 18, succeeded);
    expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
    expectEachEventOnce(receiver, [...before, ...during]);
  });

  it('counts no delivery as swept while its Redis is down: a sweep then queues nothing', async () => {
    proxy = await RedisProxy.start();
    const clock = new ClockAhead(0);
    const host = await boot({
      module: {
        redis: { host: '127.0.0.1', port: proxy.port },
        // Pages of several batches: the dispatcher's own buffer would flush each by itself.
        webhooks: { ...TEST_WEBHOOKS, batchSize: 5, sweepIntervalMs: 60_000 },
      },
      clock,
    });
    const receiver = await receivers.start();
    await createEndpoint(await clientOf(host), receiver.url);
    await proxy.stop();
    const events = await publishResults(host, ACCOUNT, 12);
    const sweeper = host.app.get(DeliverySweeper);
    // Overdue by more than a sweep interval on the module's clock.
    clock.aheadMs = 120_000;
    expect(await sweeper.sweep()).toBe(0);
    await sleep(300);
    expect(receiver.requests).toHaveLength(0);

    // Once Redis is back, a sweep queues them (unless a late answer to an enqueue already has).
    await proxy.start();
    await eventually(async () =>
      receiver.requests.length === 12 || (await sweeper.sweep()) === 12 ? true : undefined,
    );
    await receiver.waitFor(12);
    expectEachEventOnce(receiver, events);
  });

  it('keeps publishing while its Redis stalls, without piling up enqueues, and sends everything once it answers', async () => {
    proxy = await RedisProxy.start();
    const { host, receiver, client, endpoint, before } = await sendingThrough(proxy);
    // The ioredis connection the module gave the queue (BullMQ types it as its own interface).
    const producer = (await host.app.get(DeliveryQueue).queue.backend.client) as unknown as Redis;

    // Connections stay open and nothing comes back: commands wait on the producer's connection.
    proxy.stall();
    const during = await publishResults(host, ACCOUNT, 10);
    // Past the enqueue's deadline of 2 s, and a few sweeps.
    await sleep(3000);
    const waiting = producer.commandQueue.length;
    expect(waiting).toBeGreaterThan(0);
    for (let round = 0; round < 20; round++) {
      during.push(...(await publishResults(host, ACCOUNT, 10)));
      await sleep(50);
    }
    expect(producer.commandQueue.length).toBe(waiting);
    expect(receiver.requests).toHaveLength(3);

    proxy.resume();
    const deliveries = await allDeliveries(client, endpoint.id, 213, succeeded);
    expect(deliveries.every((delivery) => delivery.attempt === 1)).toBe(true);
    expectEachEventOnce(receiver, [...before, ...during]);
  });

  it('starts sending once a Redis that was down at start-up answers', async () => {
    proxy = await RedisProxy.start();
    await proxy.stop();
    const host = await boot({
      module: {
        redis: { host: '127.0.0.1', port: proxy.port },
        webhooks: { ...TEST_WEBHOOKS, sweepIntervalMs: 300 },
      },
    });
    const receiver = await receivers.start();
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(host, ACCOUNT, 5);
    await sleep(800);
    expect(receiver.requests).toHaveLength(0);

    await proxy.start();
    await allDeliveries(client, endpoint.id, 5, succeeded);
    expectEachEventOnce(receiver, events);
  });

  it('shuts down promptly when Redis has just gone away', async () => {
    proxy = await RedisProxy.start();
    const host = await createTestHost({ module: { redis: { host: '127.0.0.1', port: proxy.port } } });
    const receiver = await receivers.start();
    const client = await clientOf(host);
    await createEndpoint(client, receiver.url);
    await publishResults(host, ACCOUNT, 3);
    await receiver.waitFor(3);

    await proxy.stop();
    const started = Date.now();
    await host.close();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('shuts down promptly when Redis never answered', async () => {
    const host = await createTestHost({ module: { redis: { host: '127.0.0.1', port: 1 } } });
    const client = await clientOf(host);
    await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, 2);
    await sleep(300);
    const started = Date.now();
    await host.close();
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('auto-disable after failing for webhooks.disableAfterMs', () => {
  const webhooks = { ...TEST_WEBHOOKS, disableAfterMs: 1000, retryScheduleMs: [300, 600, 600, 600] };

  it('disables an endpoint that fails every attempt for longer, dropping its retries', async () => {
    const host = await boot({ module: { webhooks } });
    const receiver = await receivers.start((_req, _i, res) => res.writeHead(500).end());
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const [event] = await publishResults(host, ACCOUNT);

    let disabled: Record<string, unknown> | undefined;
    const warnings = await warningsDuring(async () => {
      disabled = await eventually(async () => {
        const res = await client.get(`/v1/webhook_endpoints/${endpoint.id}`);
        return res.body.status === 'disabled' ? (res.body as Record<string, unknown>) : undefined;
      });
    });
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'failing_for_too_long' });
    expect(warnings).toContain(
      `Webhook endpoint ${endpoint.id} (${ACCOUNT}:test) disabled: failing_for_too_long.`,
    );
    const [delivery] = await listAllDeliveries(client, endpoint.id);
    expect(delivery).toMatchObject({ event_id: event.id, status: 'failed', error: 'endpoint_disabled' });
    expect(delivery.next_attempt_at).toBeNull();
    expect(delivery.attempt).toBeGreaterThanOrEqual(2);
    expect(delivery.attempt).toBeLessThan(5);
    // The streak, from the first failed attempt to the one that disabled, lasted disableAfterMs.
    const { attempts } = await getDelivery(client, endpoint.id, delivery.id);
    const streak = Date.parse(attempts!.at(-1)!.created_at) - Date.parse(attempts![0].created_at);
    expect(streak).toBeGreaterThanOrEqual(1000);
    expect(attempts!.every((attempt) => attempt.response_status === 500)).toBe(true);

    // No more attempts, and new events no longer fan out to it.
    const sent = receiver.requests.length;
    expect(sent).toBe(delivery.attempt);
    await publishResults(host, ACCOUNT);
    await sleep(1500);
    expect(receiver.requests).toHaveLength(sent);
    expect(await listAllDeliveries(client, endpoint.id)).toHaveLength(1);
  });

  it('never disables an endpoint whose failures are interrupted by successes', async () => {
    const host = await boot({ module: { webhooks } });
    // One result is refused for good; every other one is accepted.
    const receiver = await receivers.start((req, _i, res) => {
      const bad = (JSON.parse(req.body) as ApiEvent).data.object.status === 'bad';
      res.writeHead(bad ? 500 : 200).end();
    });
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const publisher = host.app.get(EventPublisher);
    const bad = await publisher.publish({
      accountId: ACCOUNT,
      type: 'result.ready',
      livemode: false,
      data: { id: 'res_bad', object: 'result', status: 'bad' },
    });

    // Successes every 250 ms while the bad delivery fails its five attempts over about 2 s.
    let failed: DeliveryView | undefined;
    for (let i = 0; i < 60 && failed === undefined; i++) {
      await publishResults(host, ACCOUNT);
      await sleep(250);
      const [last] = await listAllDeliveries(client, endpoint.id, { event_id: bad.id });
      if (last.status !== 'pending') failed = last;
    }
    expect(failed).toMatchObject({ status: 'failed', attempt: 5, error: 'http_error' });
    const res = await client.get(`/v1/webhook_endpoints/${endpoint.id}`);
    expect(res.body.status).toBe('enabled');
    expect(res.body.disabled_reason).toBeUndefined();
    expect(countByWebhookId(receiver.requests).get(bad.id)).toBe(5);
  });
});

describe('a receiver that answers 410 Gone (Standard Webhooks: disable the endpoint)', () => {
  // The first failure's retry is due 1.5 s later: still pending when the 410 arrives.
  const webhooks = { ...TEST_WEBHOOKS, retryScheduleMs: [1500, 1500] };

  it('disables its endpoint at once, without retrying, and drops its pending retries', async () => {
    const host = await boot({ module: { webhooks } });
    const receiver = await receivers.start((_req, index, res) =>
      res.writeHead(index === 0 ? 500 : 410).end(),
    );
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const [retried] = await publishResults(host, ACCOUNT);
    await deliveryOf(client, endpoint.id, retried.id, (d) => d.attempt === 1);
    let gone!: ApiEvent;
    let refused!: DeliveryView;
    const warnings = await warningsDuring(async () => {
      [gone] = await publishResults(host, ACCOUNT);
      refused = await deliveryOf(client, endpoint.id, gone.id, (d) => d.status !== 'pending');
    });
    expect(warnings).toContain(`Webhook endpoint ${endpoint.id} (${ACCOUNT}:test) disabled: endpoint_gone.`);
    expect(refused).toMatchObject({
      status: 'failed',
      attempt: 1,
      response_status: 410,
      error: 'http_error',
    });
    expect(refused.next_attempt_at).toBeNull();
    const res = await client.get(`/v1/webhook_endpoints/${endpoint.id}`);
    expect(res.body).toMatchObject({ status: 'disabled', disabled_reason: 'endpoint_gone' });
    const dropped = await deliveryOf(client, endpoint.id, retried.id, (d) => d.status !== 'pending');
    expect(dropped).toMatchObject({ status: 'failed', attempt: 1, error: 'endpoint_disabled' });
    expect(dropped.next_attempt_at).toBeNull();

    // Past the dropped retry's time, nothing more is sent, and new events do not fan out to it.
    await publishResults(host, ACCOUNT);
    await sleep(2000);
    expect(receiver.requests).toHaveLength(2);
    expect(await listAllDeliveries(client, endpoint.id)).toHaveLength(2);
  });

  it('keeps the endpoint enabled when its URL changed while the 410 was on its way', async () => {
    const host = await boot({ module: { webhooks } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const old = await receivers.start((_req, _i, res) => void held.then(() => res.writeHead(410).end()));
    const current = await receivers.start();
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, old.url);
    const [event] = await publishResults(host, ACCOUNT);
    await old.waitFor(1);
    expect((await client.patch(`/v1/webhook_endpoints/${endpoint.id}`, { url: current.url })).status).toBe(
      200,
    );
    release();

    const refused = await deliveryOf(client, endpoint.id, event.id, (d) => d.status !== 'pending');
    expect(refused).toMatchObject({ status: 'failed', response_status: 410 });
    const res = await client.get(`/v1/webhook_endpoints/${endpoint.id}`);
    expect(res.body).toMatchObject({ status: 'enabled', url: current.url });
    const [next] = await publishResults(host, ACCOUNT);
    await current.waitFor(1);
    expect(current.requests[0].headers['webhook-id']).toBe(next.id);
  });
});

describe('auto-disable after a pause in the failures', () => {
  // Failures further apart than the pause (2.4 × 300 ms + the 2 s deadline ≈ 2.7 s) start afresh.
  // Retries are queued in whole seconds, so the first event's three attempts take up to 2.7 s too:
  // under disableAfterMs.
  const webhooks = { ...TEST_WEBHOOKS, disableAfterMs: 4000, retryScheduleMs: [300, 300], timeoutMs: 2000 };

  it('does not disable at one failure an endpoint whose earlier failures stopped long ago', async () => {
    const host = await boot({ module: { webhooks } });
    // The first event fails all three attempts; the next one fails once, then is accepted.
    const receiver = await receivers.start((_req, index, res) => res.writeHead(index < 4 ? 500 : 200).end());
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const [first] = await publishResults(host, ACCOUNT);
    await deliveryOf(client, endpoint.id, first.id, (d) => d.status === 'failed');
    expect((await client.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status).toBe('enabled');

    // Quiet for longer than the pause, and than disableAfterMs since the first failure.
    await sleep(4500);
    const [second] = await publishResults(host, ACCOUNT);
    const delivery = await deliveryOf(client, endpoint.id, second.id, (d) => d.status !== 'pending');
    expect(delivery).toMatchObject({ status: 'succeeded', attempt: 2 });
    const res = await client.get(`/v1/webhook_endpoints/${endpoint.id}`);
    expect(res.body.status).toBe('enabled');
    expect(receiver.requests).toHaveLength(5);
  });
});

describe('a receiver that fails at random', () => {
  it('gets every one of 100 events at least once, with bounded attempts', async () => {
    const host = await boot({
      module: { webhooks: { ...TEST_WEBHOOKS, retryScheduleMs: [100, 100, 100, 100, 100] } },
    });
    const random = seededRandom(20261121);
    const failures = new Map<string, number>();
    const accepted = new Set<string>();
    const receiver = await receivers.start((req, _i, res: ServerResponse) => {
      const id = String(req.headers['webhook-id']);
      const failed = failures.get(id) ?? 0;
      const roll = random();
      // About 30% of requests fail: mostly 500s, some dropped connections. Which event draws which
      // number depends on arrival order, so one event fails at most 4 times and never exhausts its
      // 6 attempts by bad luck: the test is about the engine, not about the odds.
      if (failed < 4 && roll < 0.3) {
        failures.set(id, failed + 1);
        if (roll < 0.05) res.socket?.destroy();
        else res.writeHead(500).end('try again');
        return;
      }
      accepted.add(id);
      res.writeHead(200).end();
    });
    const client = await clientOf(host);
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(host, ACCOUNT, 100);

    const deliveries = await allDeliveries(client, endpoint.id, 100, succeeded);
    expect(events.every((event) => accepted.has(event.id))).toBe(true);
    const totalFailures = [...failures.values()].reduce((sum, n) => sum + n, 0);
    expect(totalFailures).toBeGreaterThan(10);
    // Each attempt counted is one request the receiver got, and no more: nothing sent twice.
    const counts = countByWebhookId(receiver.requests);
    for (const delivery of deliveries) {
      expect(delivery.attempt).toBe((failures.get(delivery.event_id) ?? 0) + 1);
      expect(counts.get(delivery.event_id)).toBe(delivery.attempt);
      expect(delivery.attempt).toBeLessThanOrEqual(6);
    }
  });
});
