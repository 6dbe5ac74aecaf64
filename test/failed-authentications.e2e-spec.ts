import { jest } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { generateApiKey } from '../lib/auth/api-key-format.js';
import type { InterviewApiModuleOptions } from '../lib/index.js';
import { sleep } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually } from './support/receiver.js';
import { warningsDuring } from './support/warnings.js';

const ACCOUNT = 'acct_failed_auth';
const WINDOW_MS = 1500;
const LIMITED: Partial<InterviewApiModuleOptions> = {
  rateLimit: { test: 1000, live: 1000, failedAuthentications: { limit: 3, windowMs: WINDOW_MS } },
  worker: false,
};

/**
 * A host behind a proxy on loopback, as Express's `trust proxy` tells: the last X-Forwarded-For
 * address the proxy did not write names the client.
 */
function behindProxy(
  module: Partial<InterviewApiModuleOptions>,
  queuePrefix?: string,
  trustProxy: boolean | string = 'loopback',
): Promise<TestHost> {
  return createTestHost({
    module: queuePrefix === undefined ? module : { ...module, queuePrefix },
    configure: (app) => (app as NestExpressApplication).set('trust proxy', trustProxy),
  });
}

/** A well-formed key with a valid checksum that no one was ever given. */
const unknownKey = (): string => generateApiKey('iv', 'test');

function call(
  host: TestHost,
  from: string,
  key: string | null,
  path = '/v1/ping',
): Promise<request.Response> {
  const req = request(host.app.getHttpServer()).get(path).set('X-Forwarded-For', from);
  return key === null ? req : req.set('Authorization', `Bearer ${key}`);
}

async function statuses(host: TestHost, from: string, keys: (string | null)[]): Promise<number[]> {
  const answered: number[] = [];
  for (const key of keys) answered.push((await call(host, from, key)).status);
  return answered;
}

/** Until the limiter's Redis connection is up, nothing is counted: wait until an address is refused. */
async function whenCounting(host: TestHost): Promise<void> {
  await eventually(async () =>
    (await call(host, '198.51.100.250', unknownKey())).status === 429 ? true : undefined,
  );
}

describe('rateLimit.failedAuthentications: failed authentications per client address', () => {
  let host: TestHost;
  let valid: string;

  beforeAll(async () => {
    host = await behindProxy(LIMITED);
    valid = await host.createKey(ACCOUNT, 'test');
    await whenCounting(host);
  });
  afterAll(async () => {
    await host.close();
  });

  it('refuses an address with 429 once it reaches the limit, valid keys too, until the window ends', async () => {
    const from = '203.0.113.10';
    expect(await statuses(host, from, [unknownKey(), unknownKey(), unknownKey()])).toEqual([401, 401, 401]);

    const lookups = jest.spyOn(host.keys, 'authenticate');
    const refused = await call(host, from, valid);
    expect(refused.status).toBe(429);
    // Refused before its key is looked up: an address over the limit costs the database nothing.
    expect(lookups).not.toHaveBeenCalled();
    lookups.mockRestore();
    expect(refused.body).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'rate_limited',
        message: expect.stringContaining('Too many requests with an invalid API key from this address'),
      },
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(WINDOW_MS / 1000));
    // Another address is not refused, with the same key.
    expect((await call(host, '203.0.113.11', valid)).status).toBe(200);

    await sleep(WINDOW_MS + 100);
    expect((await call(host, from, valid)).status).toBe(200);
  });

  it('counts every key presented and refused, malformed or on unknown routes, not requests without one', async () => {
    const from = '203.0.113.20';
    expect(await statuses(host, from, [null, null, null, null, 'not-a-key'])).toEqual([
      401, 401, 401, 401, 401,
    ]);
    expect((await call(host, from, unknownKey(), '/v1/no_such_route')).status).toBe(401);
    expect((await call(host, from, valid)).status).toBe(200);
    expect((await call(host, from, unknownKey(), '/v1/no_such_route')).status).toBe(401);
    expect((await call(host, from, valid, '/v1/no_such_route')).status).toBe(429);
  });

  it('holds a burst of concurrent requests to the limit before their failures are counted', async () => {
    const from = '203.0.113.15';
    // Each look-up takes a while, as on a busy database: the burst is all in flight before any
    // failure of it is counted.
    const lookUp = host.keys.authenticate.bind(host.keys);
    const lookups = jest.spyOn(host.keys, 'authenticate').mockImplementation(async (token) => {
      await sleep(100);
      return lookUp(token);
    });
    const burst = await Promise.all(Array.from({ length: 40 }, () => call(host, from, unknownKey())));
    const calls = lookups.mock.calls.length;
    lookups.mockRestore();
    expect(calls).toBeLessThanOrEqual(3);
    expect(burst.filter((res) => res.status === 401)).toHaveLength(calls);
    expect(burst.filter((res) => res.status === 429)).toHaveLength(40 - calls);
    expect((await call(host, from, valid)).status).toBe(429);
  });

  it('lets a burst of valid keys through in turns, at most the limit looked up at once', async () => {
    const from = '203.0.113.16';
    // A key this process has not found before: a key it knows is not looked up again.
    const fresh = await host.createKey(ACCOUNT, 'test');
    const lookUp = host.keys.authenticate.bind(host.keys);
    let atOnce = 0;
    let most = 0;
    const lookups = jest.spyOn(host.keys, 'authenticate').mockImplementation(async (token) => {
      most = Math.max(most, ++atOnce);
      await sleep(100);
      atOnce--;
      return lookUp(token);
    });
    const burst = await Promise.all(Array.from({ length: 8 }, () => call(host, from, fresh)));
    lookups.mockRestore();
    expect(burst.map((res) => res.status)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(most).toBe(3);
  });

  it('counts the address the trusted proxy saw, whatever the client writes before it', async () => {
    // X-Forwarded-For's leftmost entry is the client's to write: under 'loopback' the address
    // counted is the one the trusted proxy appended, and a written one changes nothing.
    const from = '203.0.113.16';
    const written = (key: string): Promise<request.Response> =>
      request(host.app.getHttpServer())
        .get('/v1/ping')
        .set('X-Forwarded-For', `198.51.100.${Math.floor(Math.random() * 200)}, ${from}`)
        .set('Authorization', `Bearer ${key}`);
    for (let i = 0; i < 3; i++) expect((await written(unknownKey())).status).toBe(401);
    expect((await written(valid)).status).toBe(429);
  });

  it('counts a revoked key as an unknown one', async () => {
    const from = '203.0.113.30';
    const { key: revoked, apiKey } = await host.keys.create({
      accountId: ACCOUNT,
      name: 'revoked',
      mode: 'test',
      scopes: ['developers:manage'],
      creatorScopes: ['developers:manage'],
    });
    await host.keys.revoke(ACCOUNT, apiKey.id);
    expect(await statuses(host, from, [revoked, revoked, revoked, valid])).toEqual([401, 401, 401, 429]);
  });

  it('counts an IPv6 client by its /64', async () => {
    expect(await statuses(host, '2001:db8:5:6::1', [unknownKey()])).toEqual([401]);
    expect(await statuses(host, '2001:db8:5:6::2', [unknownKey()])).toEqual([401]);
    expect(await statuses(host, '2001:db8:5:6:ffff::3', [unknownKey()])).toEqual([401]);
    expect((await call(host, '2001:db8:5:6::4', valid)).status).toBe(429);
    expect((await call(host, '2001:db8:5:7::1', valid)).status).toBe(200);
  });
});

describe('failed authentications counted across processes', () => {
  it('shares the count on the module Redis: the process that reaches the limit refuses at once', async () => {
    const first = await behindProxy(LIMITED);
    const second = await behindProxy(LIMITED, first.db.name);
    try {
      await whenCounting(first);
      await whenCounting(second);
      const from = '203.0.113.40';
      expect(await statuses(first, from, [unknownKey(), unknownKey()])).toEqual([401, 401]);
      expect(await statuses(second, from, [unknownKey()])).toEqual([401]);
      expect((await call(second, from, unknownKey())).status).toBe(429);
      // The first process learns of it at its next failure from the address.
      expect(await statuses(first, from, [unknownKey(), unknownKey()])).toEqual([401, 429]);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('a host whose `trust proxy` is true', () => {
  it('is warned at start: any client writes the address it would be counted by', async () => {
    let host: TestHost | undefined;
    const warnings = await warningsDuring(async () => {
      host = await behindProxy(LIMITED, undefined, true);
    }).finally(() => host?.close());
    expect(warnings).toContainEqual(
      expect.stringContaining('which `trust proxy` true takes from the leftmost X-Forwarded-For address'),
    );
  });
});

describe('failed authentications not counted', () => {
  it.each<[string, Partial<InterviewApiModuleOptions>]>([
    ['without the option', { rateLimit: { test: 1000, live: 1000 }, worker: false }],
    ['while Redis is unreachable', { ...LIMITED, redis: { host: '127.0.0.1', port: 1 } }],
  ])('%s: every request is answered as if no limit were set', async (_when, module) => {
    const host = await behindProxy(module);
    try {
      const valid = await host.createKey(ACCOUNT, 'test');
      const from = '203.0.113.50';
      const failures = Array.from({ length: 8 }, unknownKey);
      expect(await statuses(host, from, failures)).toEqual(failures.map(() => 401));
      expect((await call(host, from, valid)).status).toBe(200);
    } finally {
      await host.close();
    }
  });
});
