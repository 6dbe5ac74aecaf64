import type { ServerResponse } from 'node:http';
import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { DeliveryEntity, WebhookEndpointEntity } from '../lib/index.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { ENDPOINT_READ_MAX_AGE_MS } from '../lib/interview-api.tuning.js';
import { generateId } from '../lib/identifiers/generate-id.js';
import { generateWebhookSecret } from '../lib/signing/index.js';
import { type ApiClient, apiClient, sleep } from './support/api-client.js';
import { expectParameterInvalid } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, OpenReceivers, type Receiver } from './support/receiver.js';
import { warningsDuring } from './support/warnings.js';
import {
  closedPort,
  ConnectionCounter,
  createEndpoint,
  deliveryOf,
  type EndpointWithSecret,
  getDelivery,
  publishResults,
  TEST_WEBHOOKS,
  verifiesWith,
} from './support/webhooks.js';

/** Everything a test started, closed after it whatever happened. */
const receivers = new OpenReceivers();
afterEach(() => receivers.closeAll());

const finished = (delivery: { status: string }): boolean => delivery.status !== 'pending';

describe('what a receiver gets', () => {
  let host: TestHost;
  let client: ApiClient;

  beforeAll(async () => {
    // One retry, late enough that a rotation made after the first attempt surely precedes it.
    host = await createTestHost({ module: { webhooks: { ...TEST_WEBHOOKS, retryScheduleMs: [1500] } } });
    client = apiClient(host, await host.createKey('acct_signing', 'test'));
  });
  afterAll(async () => {
    await host.close();
  });

  it('POSTs the event exactly as GET /v1/events/:id returns it, with Standard Webhooks headers', async () => {
    const receiver = await receivers.start();
    const endpoint = await createEndpoint(client, receiver.url, ['result.ready']);
    const other = await createEndpoint(client, receiver.url, ['result.updated']);
    const events = await publishResults(host, 'acct_signing', 3);
    const requests = await receiver.waitFor(3);
    await sleep(200);
    expect(requests).toHaveLength(3);

    for (const event of events) {
      const received = requests.find((request) => request.headers['webhook-id'] === event.id);
      expect(received).toBeDefined();
      const { method, path, headers, body, receivedAt } = received!;
      expect(method).toBe('POST');
      expect(path).toBe('/hook');
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toBe('Interview-Webhooks/1.0');
      expect(headers['webhook-id']).toBe(event.id);
      expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(Math.abs(Number(headers['webhook-timestamp']) - receivedAt / 1000)).toBeLessThanOrEqual(5);
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(headers.cookie).toBeUndefined();

      // Both the public package and ours accept it with the endpoint's secret, and only with it.
      expect(verifiesWith(received!, endpoint.secret)).toEqual({ standard: true, ours: true });
      expect(verifiesWith(received!, other.secret)).toEqual({ standard: false, ours: false });

      const fromApi = await client.get(`/v1/events/${event.id}`);
      expect(fromApi.status).toBe(200);
      expect(body).toBe(fromApi.text);
      expect(JSON.parse(body)).toEqual({
        id: event.id,
        object: 'event',
        type: 'result.ready',
        api_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        livemode: false,
        created_at: event.created_at,
        data: { object: event.data.object },
      });
    }
  });

  it('signs a retry made after rotate_secret with the new secret and never the old one', async () => {
    const receiver = await receivers.start((_req, index, res) =>
      res.writeHead(index === 0 ? 500 : 200).end(),
    );
    const endpoint = await createEndpoint(client, receiver.url);
    const [event] = await publishResults(host, 'acct_signing');

    const [first] = await receiver.waitFor(1);
    expect(verifiesWith(first, endpoint.secret)).toEqual({ standard: true, ours: true });
    await deliveryOf(client, endpoint.id, event.id, (delivery) => delivery.attempt === 1);
    const rotated = await client.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(endpoint.secret);
    expect(receiver.requests).toHaveLength(1);

    const [, retry] = await receiver.waitFor(2);
    expect(retry.headers['webhook-id']).toBe(event.id);
    expect(retry.body).toBe(first.body);
    expect(verifiesWith(retry, newSecret)).toEqual({ standard: true, ours: true });
    expect(verifiesWith(retry, endpoint.secret)).toEqual({ standard: false, ours: false });
    // Exactly one signature: no dual-signing with the old secret after a rotation.
    expect(String(retry.headers['webhook-signature']).split(' ')).toHaveLength(1);
    const delivery = await deliveryOf(client, endpoint.id, event.id, finished);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt: 2 });
  });
});

describe('an endpoint changed while its delivery waits for a send slot', () => {
  let host: TestHost;
  let client: ApiClient;

  beforeAll(async () => {
    // One send slot: the second delivery of an endpoint waits, claimed, while the first is held.
    host = await createTestHost({
      module: { webhooks: { ...TEST_WEBHOOKS, concurrency: 1, timeoutMs: 8000, retryScheduleMs: [] } },
    });
    client = apiClient(host, await host.createKey('acct_waiting', 'test'));
  });
  afterAll(async () => {
    await host.close();
  });

  /** The delivery of this event to this endpoint (earlier tests' endpoints get the event too). */
  const deliveryTo = (endpoint: EndpointWithSecret, eventId: string): Promise<DeliveryEntity | null> =>
    host.app.get(DataSource).getRepository(DeliveryEntity).findOneBy({ eventId, endpointId: endpoint.id });

  /** The stamp of the claim on that delivery, null once no worker holds it. */
  async function claimOf(endpoint: EndpointWithSecret, eventId: string): Promise<Date | null | undefined> {
    return (await deliveryTo(endpoint, eventId))?.claimedAt;
  }

  /**
   * Two events to a new endpoint whose receiver holds the first request until `release`; answers
   * once the second delivery is claimed and waiting behind it.
   */
  async function secondWaiting(): Promise<{
    receiver: Receiver;
    endpoint: EndpointWithSecret;
    waiting: string;
    release: () => void;
  }> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const receiver = await receivers.start((_req, index, res) => {
      if (index === 0) void held.then(() => res.writeHead(200).end());
      else res.writeHead(200).end();
    });
    const endpoint = await createEndpoint(client, receiver.url);
    const events = await publishResults(host, 'acct_waiting', 2);
    const [first] = await receiver.waitFor(1);
    const waiting = events.find((event) => event.id !== first.headers['webhook-id'])!.id;
    await eventually(async () => (await claimOf(endpoint, waiting)) instanceof Date);
    return { receiver, endpoint, waiting, release };
  }

  /** The worker lets go of the waiting delivery once its outcome is recorded: failed, never sent. */
  async function expectDroppedUnsent(
    receiver: Receiver,
    endpoint: EndpointWithSecret,
    waiting: string,
  ): Promise<void> {
    await eventually(async () => (await claimOf(endpoint, waiting)) === null);
    await sleep(300);
    expect(receiver.requests).toHaveLength(1);
    const delivery = await deliveryOf(client, endpoint.id, waiting, finished);
    expect(delivery).toMatchObject({ status: 'failed', error: 'endpoint_disabled', attempt: 0 });
  }

  it('signs the waiting delivery with the secret rotated meanwhile, not the one it was claimed with', async () => {
    const { receiver, endpoint, waiting, release } = await secondWaiting();
    const rotated = await client.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    // The slot frees the moment the rotation answers: the attempt starts after it.
    release();

    const [, second] = await receiver.waitFor(2);
    expect(second.headers['webhook-id']).toBe(waiting);
    expect(verifiesWith(second, rotated.body.secret as string)).toEqual({ standard: true, ours: true });
    expect(verifiesWith(second, endpoint.secret)).toEqual({ standard: false, ours: false });
  });

  it('sends nothing more once the endpoint is disabled meanwhile: the waiting delivery fails unsent', async () => {
    const { receiver, endpoint, waiting, release } = await secondWaiting();
    const disabled = await client.patch(`/v1/webhook_endpoints/${endpoint.id}`, { disabled: true });
    expect(disabled.status).toBe(200);
    release();

    await expectDroppedUnsent(receiver, endpoint, waiting);
  });

  it('keeps the waiting delivery dropped when the endpoint is disabled and enabled again meanwhile', async () => {
    const { receiver, endpoint, waiting, release } = await secondWaiting();
    const path = `/v1/webhook_endpoints/${endpoint.id}`;
    expect((await client.patch(path, { disabled: true })).status).toBe(200);
    expect((await client.patch(path, { disabled: false })).status).toBe(200);
    release();

    await expectDroppedUnsent(receiver, endpoint, waiting);
  });

  it('gives the waiting delivery back, not held to its lease, when its endpoint cannot be read in time', async () => {
    const { receiver, waiting, release } = await secondWaiting();
    const store = host.app.get(DeliveryStore);
    const targets = store.targets.bind(store);
    // A database answering each read of the endpoint too late to serve the send.
    const slow = jest.spyOn(store, 'targets').mockImplementation(async (ids) => {
      await sleep(ENDPOINT_READ_MAX_AGE_MS + 50);
      return targets(ids);
    });
    try {
      // Past the claim's own read: the send reads its endpoint again.
      await sleep(ENDPOINT_READ_MAX_AGE_MS + 50);
      release();
      await eventually(async () => slow.mock.calls.length >= 3);
    } finally {
      slow.mockRestore();
    }
    // Claimed again and sent well within the 60 s lease it would otherwise have waited out.
    const [, second] = await receiver.waitFor(2, 10_000);
    expect(second.headers['webhook-id']).toBe(waiting);
  });

  it('gives the waiting delivery back, not held to its lease, when the database refuses to read its endpoint', async () => {
    const { receiver, endpoint, waiting, release } = await secondWaiting();
    const store = host.app.get(DeliveryStore);
    // A database restarting: every read of the endpoint fails.
    const refused = jest.spyOn(store, 'targets').mockRejectedValue(new Error('connect ECONNREFUSED'));
    const warnings = await warningsDuring(async () => {
      try {
        await sleep(ENDPOINT_READ_MAX_AGE_MS + 50);
        release();
        await eventually(async () => refused.mock.calls.length >= 1);
      } finally {
        refused.mockRestore();
      }
    });
    expect(warnings.filter((warning) => warning.includes('connect ECONNREFUSED'))).toEqual([
      'Could not read webhook endpoints again; deliveries waiting for a send slot are given back for later: Error: connect ECONNREFUSED',
    ]);
    const [, second] = await receiver.waitFor(2, 10_000);
    expect(second.headers['webhook-id']).toBe(waiting);
    // Given back unsent: the attempt that reached the receiver is its first.
    const delivered = await eventually(async () => {
      const delivery = await deliveryTo(endpoint, waiting);
      return delivery?.status === 'succeeded' ? delivery : undefined;
    });
    expect(delivered.attempt).toBe(1);
  });

  it('sends nothing more once the endpoint is deleted meanwhile: the waiting delivery fails unsent', async () => {
    const { receiver, endpoint, waiting, release } = await secondWaiting();
    const deleted = await client.delete(`/v1/webhook_endpoints/${endpoint.id}`);
    expect(deleted.status).toBe(200);
    release();

    await eventually(async () => (await claimOf(endpoint, waiting)) === null);
    await sleep(300);
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryTo(endpoint, waiting)).toMatchObject({
      status: 'failed',
      error: 'endpoint_deleted',
      attempt: 0,
    });
  });

  it('sends the waiting delivery to the URL set meanwhile', async () => {
    const { receiver, endpoint, waiting, release } = await secondWaiting();
    const moved = await receivers.start((_req, _index, res) => res.writeHead(200).end());
    const updated = await client.patch(`/v1/webhook_endpoints/${endpoint.id}`, { url: moved.url });
    expect(updated.status).toBe(200);
    release();

    const [request] = await moved.waitFor(1);
    expect(request.headers['webhook-id']).toBe(waiting);
    await sleep(300);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('hostile or broken receivers', () => {
  let host: TestHost;
  let client: ApiClient;

  beforeAll(async () => {
    // No retries: each case ends in one attempt. A short deadline keeps the timeout cases quick.
    host = await createTestHost({
      module: { serviceName: 'Acme', webhooks: { ...TEST_WEBHOOKS, timeoutMs: 500, retryScheduleMs: [] } },
    });
    client = apiClient(host, await host.createKey('acct_hostile', 'test'));
  });
  afterAll(async () => {
    await host.close();
  });

  /** Publishes one event to a new endpoint at `url` and answers its finished delivery. */
  async function deliverTo(url: string): Promise<{ endpointId: string; deliveryId: string }> {
    const endpoint = await createEndpoint(client, url);
    const [event] = await publishResults(host, 'acct_hostile');
    const delivery = await deliveryOf(client, endpoint.id, event.id, finished);
    await client.patch(`/v1/webhook_endpoints/${endpoint.id}`, { disabled: true });
    return { endpointId: endpoint.id, deliveryId: delivery.id };
  }

  it('names the host’s serviceName in the user-agent', async () => {
    const receiver = await receivers.start();
    await deliverTo(receiver.url);
    expect(receiver.requests[0].headers['user-agent']).toBe('Acme-Webhooks/1.0');
  });

  it('records a receiver slower than webhooks.timeoutMs as a timeout', async () => {
    const held: ServerResponse[] = [];
    const receiver = await receivers.start((_req, _i, res) => void held.push(res));
    const { endpointId, deliveryId } = await deliverTo(receiver.url);
    const delivery = await getDelivery(client, endpointId, deliveryId);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempt: 1,
      error: 'timeout',
      response_status: null,
      response_body: null,
      next_attempt_at: null,
    });
    expect(delivery.duration_ms).toBeGreaterThanOrEqual(400);
    expect(delivery.duration_ms).toBeLessThan(5000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('ends a reply that drips its body forever at the same deadline', async () => {
    const timers: NodeJS.Timeout[] = [];
    const receiver = await receivers.start((_req, _i, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 50);
      timers.push(timer);
      res.on('close', () => clearInterval(timer));
    });
    try {
      const { endpointId, deliveryId } = await deliverTo(receiver.url);
      const delivery = await getDelivery(client, endpointId, deliveryId);
      expect(delivery).toMatchObject({ status: 'failed', error: 'timeout', response_status: 200 });
      expect(delivery.duration_ms).toBeLessThan(5000);
    } finally {
      timers.forEach((timer) => clearInterval(timer));
    }
  });

  it('records a refused connection as connection_error', async () => {
    const { endpointId, deliveryId } = await deliverTo(`http://127.0.0.1:${await closedPort()}/hook`);
    expect(await getDelivery(client, endpointId, deliveryId)).toMatchObject({
      status: 'failed',
      attempt: 1,
      error: 'connection_error',
      response_status: null,
    });
  });

  it('never follows a redirect: a 302 is a failed attempt, and its target is never asked', async () => {
    const target = await receivers.start();
    const receiver = await receivers.start((_req, _i, res) =>
      res.writeHead(302, { location: target.url }).end('moved'),
    );
    const { endpointId, deliveryId } = await deliverTo(receiver.url);
    const delivery = await getDelivery(client, endpointId, deliveryId);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempt: 1,
      response_status: 302,
      error: 'http_error',
    });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, response_status: 302, error: 'http_error' }),
    ]);
    await sleep(300);
    expect(receiver.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('keeps exactly the first 2,000 characters of a 1 MB reply', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const receiver = await receivers.start((_req, _i, res) => res.writeHead(200).end(big));
    const { endpointId, deliveryId } = await deliverTo(receiver.url);
    const delivery = await getDelivery(client, endpointId, deliveryId);
    expect(delivery.status).toBe('succeeded');
    expect(delivery.response_body).toBe('x'.repeat(2000));
    expect(delivery.attempts![0].response_body).toBe('x'.repeat(2000));
  });

  it('stores a failing reply body too, and a short one whole', async () => {
    const receiver = await receivers.start((_req, _i, res) => res.writeHead(503).end('{"busy":true}'));
    const { endpointId, deliveryId } = await deliverTo(receiver.url);
    expect(await getDelivery(client, endpointId, deliveryId)).toMatchObject({
      status: 'failed',
      response_status: 503,
      response_body: '{"busy":true}',
      error: 'http_error',
    });
  });
});

describe('blocked destinations without allowInsecureUrls (the production default)', () => {
  let host: TestHost;
  let client: ApiClient;
  let counter: ConnectionCounter;

  beforeAll(async () => {
    host = await createTestHost({ module: { webhooks: { allowInsecureUrls: false, retryScheduleMs: [] } } });
    client = apiClient(host, await host.createKey('acct_ssrf', 'test'));
    counter = await ConnectionCounter.start();
  });
  afterAll(async () => {
    await host.close();
    await counter.close();
  });

  it('refuses to register http or loopback URLs', async () => {
    for (const url of [
      `http://example.com/hook`,
      `https://127.0.0.1:${counter.port}/`,
      `https://localhost:${counter.port}/`,
    ]) {
      expectParameterInvalid(
        await client.post('/v1/webhook_endpoints', { url, enabled_events: ['*'] }),
        'url',
      );
    }
  });

  it('fails a delivery to a loopback endpoint stored anyway with blocked_destination, never connecting', async () => {
    const urls = [
      `https://127.0.0.1:${counter.port}/`,
      `https://localhost:${counter.port}/`,
      `https://0x7f000001:${counter.port}/`,
      `https://[::ffff:127.0.0.1]:${counter.port}/`,
    ];
    const now = new Date();
    const repository = host.app.get(DataSource).getRepository(WebhookEndpointEntity);
    const endpoints = urls.map((url) =>
      repository.create({
        id: generateId('whk', now),
        accountId: 'acct_ssrf',
        livemode: false,
        url,
        description: null,
        enabledEvents: ['*'],
        status: 'enabled',
        disabledReason: null,
        secret: generateWebhookSecret(),
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      }),
    );
    await repository.insert(endpoints);

    const [event] = await publishResults(host, 'acct_ssrf');
    for (const endpoint of endpoints) {
      const delivery = await deliveryOf(client, endpoint.id, event.id, finished);
      expect(delivery).toMatchObject({
        status: 'failed',
        attempt: 1,
        error: 'blocked_destination',
        response_status: null,
        next_attempt_at: null,
      });
    }
    await sleep(200);
    expect(counter.connections).toBe(0);
  });
});
