import { Controller, Get, UseGuards } from '@nestjs/common';
import request from 'supertest';
import type { Redis } from 'ioredis';
import { RateLimiter } from '../lib/auth/rate-limiter.js';
import { ApiKeyGuard } from '../lib/index.js';
import { apiClient, type ApiClient, sleep } from './support/api-client.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';
import { RedisProxy } from './support/redis-proxy.js';
import { warningsDuring } from './support/warnings.js';

const ACCOUNT = 'acct_rate';

/** The guard applied alone, without the module's filter: Nest's default filter answers its 429. */
@Controller('guarded_alone')
@UseGuards(ApiKeyGuard)
class GuardAloneController {
  @Get()
  get(): { ok: boolean } {
    return { ok: true };
  }
}

describe('rate limits per API key (429 rate_limited)', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({
      module: { rateLimit: { test: 5, live: 10 } },
      controllers: [GuardAloneController],
    });
    // Requests go through unmetered until the limiter's Redis connection is up.
    const warmUp = await host.createKey(ACCOUNT, 'test');
    await eventually(async () => ((await burst(warmUp, 6)).includes(429) ? true : undefined));
  });
  afterAll(async () => {
    await host.close();
  });

  /** The statuses of `count` requests made at once with `key`. */
  async function burst(key: string, count: number): Promise<number[]> {
    return (await timedBurst(count, () => apiClient(host, key).get('/v1/ping'))).statuses;
  }

  /**
   * `count` requests made at once, their responses, and how long they took from the first sent to
   * the last answered: a bucket refills while a burst runs, by one token per 1/rate of a second,
   * and on a busy machine a burst can take longer than that.
   */
  async function timedBurst(
    count: number,
    send: (i: number) => Promise<request.Response>,
  ): Promise<{ responses: request.Response[]; statuses: number[]; elapsedMs: number }> {
    const startedAt = performance.now();
    const responses = await Promise.all(Array.from({ length: count }, (_, i) => send(i)));
    const elapsedMs = performance.now() - startedAt;
    return { responses, statuses: responses.map((res) => res.status), elapsedMs };
  }

  /** A full bucket lets `rate` through at once, plus one for each 1/rate of a second the burst lasted. */
  function expectMetered(statuses: number[], rate: number, elapsedMs: number, allowedStatus = 200): void {
    const allowed = statuses.filter((status) => status === allowedStatus).length;
    expect(statuses.filter((status) => status === 429)).toHaveLength(statuses.length - allowed);
    expect(allowed).toBeGreaterThanOrEqual(rate);
    expect(allowed).toBeLessThanOrEqual(rate + Math.floor((elapsedMs * rate) / 1000));
  }

  it('lets a test key make 5 requests at once and refuses the rest with 429 and Retry-After', async () => {
    const key = await host.createKey(ACCOUNT, 'test');
    const client = apiClient(host, key);
    const { responses, statuses, elapsedMs } = await timedBurst(12, () => client.get('/v1/ping'));
    expectMetered(statuses, 5, elapsedMs);

    const refused = responses.find((res) => res.status === 429);
    expect(refused?.body).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'rate_limited',
        message: expect.stringContaining('at most 5 a second'),
      },
    });
    expect(refused?.headers['retry-after']).toBe('1');

    // Another key of the same account has a bucket of its own.
    expect(await burst(await host.createKey(ACCOUNT, 'test'), 5)).toEqual([200, 200, 200, 200, 200]);
    // A second later the key has its tokens back.
    await sleep(1000);
    expect(await burst(key, 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('meters requests to unknown /v1 routes too: probing for routes costs the key its rate', async () => {
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    const { responses, statuses, elapsedMs } = await timedBurst(12, () => client.get('/v1/nope'));
    expectMetered(statuses, 5, elapsedMs, 404);
    expect(responses.find((res) => res.status === 429)?.headers['retry-after']).toBe('1');
  });

  it('answers 429 with Retry-After in the envelope where the guard is applied alone', async () => {
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    const { responses, statuses, elapsedMs } = await timedBurst(12, () => client.get('/guarded_alone'));
    expectMetered(statuses, 5, elapsedMs);
    const refused = responses.find((res) => res.status === 429);
    expect(refused?.body).toEqual(errorEnvelope('rate_limit_error', 'rate_limited'));
    expect(refused?.headers['retry-after']).toBe('1');
  });

  it('gives a live key the live limit, and refuses only what exceeds it', async () => {
    const key = await host.createKey(ACCOUNT, 'live');
    const client = apiClient(host, key);
    const { statuses, elapsedMs } = await timedBurst(24, () => client.get('/v1/ping'));
    expectMetered(statuses, 10, elapsedMs);
  });

  it('meters a key across every route, and refuses before the route runs', async () => {
    const key = await host.createKey(ACCOUNT, 'test');
    const client = apiClient(host, key);
    const { statuses, elapsedMs } = await timedBurst(12, (i) =>
      client.post('/v1/webhook_endpoints', { url: `https://example.com/hook/${i}`, enabled_events: ['*'] }),
    );
    expectMetered(statuses, 5, elapsedMs, 201);
    // Only the requests let through created an endpoint.
    await sleep(1000);
    const listed = await client.get('/v1/webhook_endpoints', { limit: 100 });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(statuses.filter((status) => status === 201).length);
  });

  it('never meters a request without a valid key: it is refused with 401 first', async () => {
    const res = await request(host.app.getHttpServer()).get('/v1/ping').set('Authorization', 'Bearer nope');
    expect(res.status).toBe(401);
  });
});

describe('rate limits while Redis does not answer', () => {
  /** A host whose limiter reaches Redis through a proxy, once it meters (a request refused). */
  async function meteredThroughProxy(): Promise<{ proxy: RedisProxy; host: TestHost; client: ApiClient }> {
    const proxy = await RedisProxy.start();
    const host = await createTestHost({
      module: {
        rateLimit: { test: 2, live: 2 },
        redis: { host: '127.0.0.1', port: proxy.port },
        worker: false,
      },
    });
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await eventually(async () => (await client.get('/v1/ping')).status === 429);
    return { proxy, host, client };
  }

  it('lets requests through unmetered while Redis stalls, without queueing a command for each', async () => {
    const { proxy, host, client } = await meteredThroughProxy();
    try {
      // The limiter's own connection (private: what waits on it is the point).
      const connection = (host.app.get(RateLimiter) as unknown as { connection: Redis }).connection;

      // Connections stay open and nothing comes back.
      proxy.stall();
      expect((await client.get('/v1/ping')).status).toBe(200);
      const waiting = connection.commandQueue.length;
      for (let i = 0; i < 20; i++) expect((await client.get('/v1/ping')).status).toBe(200);
      expect(connection.commandQueue.length).toBe(waiting);

      proxy.resume();
      await eventually(async () => (await client.get('/v1/ping')).status === 429);
    } finally {
      await host.close();
      await proxy.stop();
    }
  });

  it('says so when its connection comes back to a Redis that accepts it and answers nothing', async () => {
    const { proxy, host, client } = await meteredThroughProxy();
    try {
      await sleep(1100);
      const warnings = await warningsDuring(async () => {
        // The connection is cut, and its reconnection accepted by a server that answers nothing:
        // it never becomes ready, and raises no error of its own.
        proxy.stall();
        await proxy.stop();
        await proxy.start();
        await sleep(1000);
        for (let i = 0; i < 5; i++) expect((await client.get('/v1/ping')).status).toBe(200);
      });
      expect(
        warnings.filter((line) => line.startsWith('Rate limits are off until Redis answers again')),
      ).not.toEqual([]);
    } finally {
      await host.close();
      await proxy.stop();
    }
  });

  it('lets every request through, promptly', async () => {
    const host = await createTestHost({
      module: { rateLimit: { test: 2, live: 2 }, redis: { host: '127.0.0.1', port: 1 }, worker: false },
    });
    try {
      const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
      const started = Date.now();
      const responses = await Promise.all(Array.from({ length: 10 }, () => client.get('/v1/ping')));
      expect(responses.map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 200));
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await host.close();
    }
  });
});
