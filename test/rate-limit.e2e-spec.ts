import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  HttpException,
  HttpStatus,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response as ExpressResponse } from 'express';
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

/** What the X-RateLimit-* headers of an answer say, as numbers; undefined for one it lacks. */
function bucketOf(res: request.Response): { limit?: number; remaining?: number; reset?: number } {
  const read = (name: string): number | undefined => {
    const value = res.headers[name] as string | undefined;
    if (value === undefined) return undefined;
    expect(value).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
  };
}

function expectNoBucket(res: request.Response): void {
  expect(Object.keys(res.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
}

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
    expect(bucketOf(refused!)).toEqual({ limit: 5, remaining: 0, reset: 1 });
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

  it("tells every answer of a burst the key's bucket: Limit the mode's rate, Remaining going down, Reset", async () => {
    const rate = 10;
    const client = apiClient(host, await host.createKey(ACCOUNT, 'live'));
    const { responses, statuses, elapsedMs } = await timedBurst(rate + 6, () => client.get('/v1/ping'));
    expectMetered(statuses, rate, elapsedMs);
    for (const res of responses) {
      const { limit, remaining, reset } = bucketOf(res);
      expect(limit).toBe(rate);
      // The bucket holds one second's worth: below full, it is full again within the second.
      expect(reset).toBe(1);
      if (res.status === 429) {
        expect(remaining).toBe(0);
        expect(res.headers['retry-after']).toBe('1');
      }
    }
    // The k-th request let through found k - 1 tokens taken before it, less what the bucket refilled
    // while the burst lasted: without a refill, rate - 1, rate - 2, ... in the order Redis took them.
    const refilled = Math.floor((elapsedMs * rate) / 1000);
    const remaining = responses
      .filter((res) => res.status === 200)
      .map((res) => bucketOf(res).remaining!)
      .sort((a, b) => b - a);
    expect(remaining[0]).toBe(rate - 1);
    remaining.forEach((left, index) => {
      expect(left).toBeGreaterThanOrEqual(Math.max(0, rate - 1 - index));
      expect(left).toBeLessThanOrEqual(rate - 1 - index + refilled);
    });
  });

  it('sends the bucket with every answer to a metered request: errors, unknown routes and the guard alone', async () => {
    const key = await host.createKey(ACCOUNT, 'test', ['results:read']);
    const client = apiClient(host, key);
    const answers = [
      await client.get('/v1/ping'),
      await client.get('/v1/sessions/ses_unknown'),
      await client.get('/v1/webhook_endpoints'),
      await client.get('/v1/nope'),
      await client.get('/guarded_alone'),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 404, 403, 404, 200]);
    for (const res of answers)
      expect(bucketOf(res)).toEqual({ limit: 5, remaining: expect.any(Number), reset: 1 });
    // Nothing comes with a request refused before it was metered.
    expectNoBucket(
      await request(host.app.getHttpServer()).get('/v1/ping').set('Authorization', 'Bearer nope'),
    );
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
      // Unmetered: no bucket to tell.
      responses.forEach(expectNoBucket);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await host.close();
    }
  });
});

/**
 * @nestjs/throttler's exception as the package defines it (its name, status and message): the
 * package itself is not a dependency of the module.
 */
class ThrottlerException extends HttpException {
  constructor() {
    super('ThrottlerException: Too Many Requests', HttpStatus.TOO_MANY_REQUESTS);
  }
}

/**
 * A host's global throttler, refusing the requests that ask for it with `x-throttle`: as the real
 * ThrottlerGuard, it sets `Retry-After` on the response (the header's value) and throws.
 */
class HostThrottlerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const throttle = context.switchToHttp().getRequest<Request>().headers['x-throttle'];
    if (throttle === undefined) return true;
    if (throttle !== 'without-retry-after') {
      context.switchToHttp().getResponse<ExpressResponse>().header('Retry-After', String(throttle));
    }
    throw new ThrottlerException();
  }
}

describe("a host's own throttler refusing a module route", () => {
  let host: TestHost;
  let client: ApiClient;

  beforeAll(async () => {
    host = await createTestHost({ configure: (app) => app.useGlobalGuards(new HostThrottlerGuard()) });
    client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
  });
  afterAll(async () => {
    await host.close();
  });

  it("answers 429 rate_limited in the envelope, in plain words, keeping the throttler's Retry-After", async () => {
    const refused = await request(host.app.getHttpServer())
      .post('/v1/webhook_endpoints')
      .set('Authorization', 'Bearer nope')
      .set('x-throttle', '7')
      .send({ url: 'https://example.com/hook', enabled_events: ['*'] });
    expect({
      status: refused.status,
      body: refused.body,
      retryAfter: refused.headers['retry-after'],
    }).toEqual({
      status: 429,
      body: {
        error: {
          type: 'rate_limit_error',
          code: 'rate_limited',
          message: 'Too many requests. Retry after 7 s.',
        },
      },
      retryAfter: '7',
    });
    // The guard refused before the key was looked at: nothing was created.
    expect((await client.get('/v1/webhook_endpoints')).body.data).toEqual([]);
  });

  it('adds no Retry-After of its own when the throttler set none', async () => {
    const refused = await request(host.app.getHttpServer())
      .get('/v1/ping')
      .set('x-throttle', 'without-retry-after');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 429,
      body: {
        error: { type: 'rate_limit_error', code: 'rate_limited', message: 'Too many requests. Retry later.' },
      },
    });
    expect(refused.headers['retry-after']).toBeUndefined();
  });

  it("leaves the host's own routes to Nest's answer", async () => {
    const refused = await request(host.app.getHttpServer()).get('/host/hello').set('x-throttle', '3');
    expect({
      status: refused.status,
      body: refused.body,
      retryAfter: refused.headers['retry-after'],
    }).toEqual({
      status: 429,
      body: { statusCode: 429, message: 'ThrottlerException: Too Many Requests' },
      retryAfter: '3',
    });
  });

  it('sends no X-RateLimit headers of the module with rateLimit: false', async () => {
    const res = await client.get('/v1/ping');
    expect(res.status).toBe(200);
    expectNoBucket(res);
    expectNoBucket(await client.get('/v1/nope'));
  });
});
