import request from 'supertest';
import { apiClient, sleep } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';

const ACCOUNT = 'acct_rate';

describe('rate limits per API key (DECISIONS.md, Errors: 429 rate_limited)', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({ module: { rateLimit: { test: 5, live: 10 } } });
    // Requests go through unmetered until the limiter's Redis connection is up.
    const warmUp = await host.createKey(ACCOUNT, 'test');
    await eventually(async () => ((await burst(warmUp, 6)).includes(429) ? true : undefined));
  });
  afterAll(async () => {
    await host.close();
  });

  /** The statuses of `count` requests made at once with `key`. */
  async function burst(key: string, count: number): Promise<number[]> {
    const client = apiClient(host, key);
    const responses = await Promise.all(Array.from({ length: count }, () => client.get('/v1/ping')));
    return responses.map((res) => res.status);
  }

  it('lets a test key make 5 requests at once and refuses the next with 429 and Retry-After', async () => {
    const key = await host.createKey(ACCOUNT, 'test');
    expect(await burst(key, 5)).toEqual([200, 200, 200, 200, 200]);

    const refused = await apiClient(host, key).get('/v1/ping');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'rate_limited',
        message: expect.stringContaining('at most 5 a second'),
      },
    });
    expect(refused.headers['retry-after']).toBe('1');

    // Another key of the same account has a bucket of its own.
    expect(await burst(await host.createKey(ACCOUNT, 'test'), 5)).toEqual([200, 200, 200, 200, 200]);
    // A second later the key has its tokens back.
    await sleep(1000);
    expect(await burst(key, 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('gives a live key the live limit, and refuses only what exceeds it', async () => {
    const key = await host.createKey(ACCOUNT, 'live');
    const statuses = await burst(key, 14);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(4);
  });

  it('meters a key across every route, and refuses before the route runs', async () => {
    const key = await host.createKey(ACCOUNT, 'test');
    const client = apiClient(host, key);
    expect(await burst(key, 5)).toEqual([200, 200, 200, 200, 200]);
    const created = await client.post('/v1/webhook_endpoints', {
      url: 'https://example.com/hook',
      enabled_events: ['*'],
    });
    expect(created.status).toBe(429);
    await sleep(1000);
    const listed = await client.get('/v1/webhook_endpoints');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
  });

  it('never meters a request without a valid key: it is refused with 401 first', async () => {
    const res = await request(host.app.getHttpServer()).get('/v1/ping').set('Authorization', 'Bearer nope');
    expect(res.status).toBe(401);
  });
});

describe('rate limits while Redis does not answer', () => {
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
