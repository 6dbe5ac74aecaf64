import type { IncomingHttpHeaders } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { EventPublisher, type ApiEvent, type DeliveryView, verifyWebhook } from '../../lib/index.js';
import type { ApiClient } from './api-client.js';
import type { TestHost } from './host-app.js';
import { eventually, type ReceivedRequest, WAIT_MS } from './receiver.js';

/**
 * The webhook settings createTestHost uses by default. Passing `module.webhooks` replaces the whole
 * object, so tests that change one setting spread these first. The send deadline is the module's
 * own: on a busy machine a receiver's answer can come seconds late, and a shorter deadline would
 * make it a timeout whose retry is a second send.
 */
export const TEST_WEBHOOKS = {
  allowInsecureUrls: true,
  retryScheduleMs: [300, 600],
  timeoutMs: 10_000,
  sweepIntervalMs: 1000,
};

export const REDIS = { host: '127.0.0.1', port: 6379 };

export interface EndpointWithSecret {
  id: string;
  url: string;
  secret: string;
  status: string;
  disabled_reason?: string;
}

/** POST /v1/webhook_endpoints, expecting 201. */
export async function createEndpoint(
  client: ApiClient,
  url: string,
  enabledEvents: string[] = ['*'],
): Promise<EndpointWithSecret> {
  const res = await client.post('/v1/webhook_endpoints', { url, enabled_events: enabledEvents });
  expect(res.status).toBe(201);
  return res.body as EndpointWithSecret;
}

/** Publishes `result.ready` events for a result of the account, in test mode. */
export async function publishResults(
  host: TestHost,
  accountId: string,
  count = 1,
  type = 'result.ready',
): Promise<ApiEvent[]> {
  const publisher = host.app.get(EventPublisher);
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      publisher.publish({
        accountId,
        type,
        livemode: false,
        data: {
          id: `res_${index}_${Math.random().toString(36).slice(2, 10)}`,
          object: 'result',
          status: 'ready',
        },
      }),
    ),
  );
}

/** GET one delivery of an endpoint, with its attempts. */
export async function getDelivery(
  client: ApiClient,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  const res = await client.get(`/v1/webhook_endpoints/${endpointId}/deliveries/${deliveryId}`);
  expect(res.status).toBe(200);
  return res.body as DeliveryView;
}

/** Every delivery of an endpoint, walking the pages of the list. */
export async function listAllDeliveries(
  client: ApiClient,
  endpointId: string,
  query: Record<string, string> = {},
): Promise<DeliveryView[]> {
  const all: DeliveryView[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await client.get(`/v1/webhook_endpoints/${endpointId}/deliveries`, {
      ...query,
      limit: 100,
      ...(cursor === undefined ? {} : { cursor }),
    });
    expect(res.status).toBe(200);
    all.push(...(res.body.data as DeliveryView[]));
    if (!res.body.has_more) return all;
    cursor = res.body.next_cursor as string;
  }
}

/** The endpoint's only delivery of `eventId`, once `ready` accepts it. */
export function deliveryOf(
  client: ApiClient,
  endpointId: string,
  eventId: string,
  ready: (delivery: DeliveryView) => boolean,
  timeoutMs = WAIT_MS,
): Promise<DeliveryView> {
  return eventually(async () => {
    const res = await client.get(`/v1/webhook_endpoints/${endpointId}/deliveries`, { event_id: eventId });
    expect(res.status).toBe(200);
    const [delivery] = res.body.data as DeliveryView[];
    return delivery !== undefined && ready(delivery) ? delivery : undefined;
  }, timeoutMs);
}

/** A request's headers as the verifying libraries take them (single values only). */
export function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') result[name] = value;
  }
  return result;
}

/** Whether both the public `standardwebhooks` package and our `verifyWebhook` accept the request. */
export function verifiesWith(request: ReceivedRequest, secret: string): { standard: boolean; ours: boolean } {
  let standard = true;
  let ours = true;
  try {
    new Webhook(secret).verify(request.body, plainHeaders(request.headers));
  } catch {
    standard = false;
  }
  try {
    verifyWebhook(request.body, request.headers, secret);
  } catch {
    ours = false;
  }
  return { standard, ours };
}

/** How many requests carried each webhook-id. */
export function countByWebhookId(requests: readonly ReceivedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests) {
    const id = String(request.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** A deterministic PRNG (mulberry32), so a "random" receiver fails the same way on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A loopback port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A bare TCP listener on loopback that only counts connections, closing each at once: the proof
 * that a blocked destination was never even connected to.
 */
export class ConnectionCounter {
  connections = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.destroy();
    });
  }

  static async start(): Promise<ConnectionCounter> {
    const counter = new ConnectionCounter(createServer());
    await new Promise<void>((resolve) => counter.server.listen(0, '127.0.0.1', resolve));
    return counter;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.sockets.forEach((socket) => socket.destroy());
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Deletes one queue's keys, as a Redis flush would, without touching the other tests' queues that
 * share this Redis (never FLUSHALL). Answers how many keys went.
 */
export async function deleteQueueKeys(queuePrefix: string): Promise<number> {
  const redis = new Redis({ ...REDIS, lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const keys = await redis.keys(`${queuePrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    return keys.length;
  } finally {
    redis.disconnect();
  }
}

/** How many keys one queue holds in Redis. */
export async function countQueueKeys(queuePrefix: string): Promise<number> {
  const redis = new Redis({ ...REDIS, lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return (await redis.keys(`${queuePrefix}:*`)).length;
  } finally {
    redis.disconnect();
  }
}
