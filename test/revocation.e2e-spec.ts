import { jest } from '@jest/globals';
import request from 'supertest';
import { TestDatabase } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/**
 * Revocation takes effect at once in every instance of the host sharing the database
 * (docs/decisions.md, API keys): two app instances over one database, as behind a load balancer.
 */
/**
 * Rate limits on, far above what the tests send: an instance then keeps the keys it found valid and
 * asks Redis, in the limiter's round trip, whether each is still good.
 */
const LIMITED = { rateLimit: { live: 100_000, test: 100_000 } };

describe('revoking a key across app instances', () => {
  let db: TestDatabase;
  let first: TestHost;
  let second: TestHost;

  beforeAll(async () => {
    db = await TestDatabase.create();
    // One after the other: both synchronize the same schema at boot.
    first = await createTestHost({ db, keepDatabase: true, module: LIMITED });
    second = await createTestHost({ db, keepDatabase: true, module: LIMITED });
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await db.drop();
  });

  const ping = (host: TestHost, key: string) =>
    request(host.app.getHttpServer()).get('/v1/ping').set('Authorization', `Bearer ${key}`);

  it('is refused by the other instance on its very next request', async () => {
    const created = await first.keys.create({
      accountId: 'acct_rev',
      name: 'rotating',
      mode: 'live',
      scopes: ['results:read'],
      creatorScopes: ['results:read'],
    });
    const keeper = await first.createKey('acct_rev', 'live');
    // Warm: both instances have authenticated the key, several times.
    for (let i = 0; i < 3; i++) {
      await ping(first, created.key).expect(200);
      await ping(second, created.key).expect(200);
      await request(second.app.getHttpServer())
        .get('/v1/sessions')
        .set('Authorization', `Bearer ${created.key}`)
        .expect(200);
    }

    await first.keys.revoke('acct_rev', created.apiKey.id);

    const onSecond = await ping(second, created.key).expect(401);
    expect(onSecond.body).toEqual({
      error: { type: 'authentication_error', code: 'invalid_api_key', message: expect.any(String) },
    });
    await request(second.app.getHttpServer())
      .get('/v1/sessions')
      .set('Authorization', `Bearer ${created.key}`)
      .expect(401);
    await ping(first, created.key).expect(401);
    // The account's other key is unaffected, on both instances.
    await ping(first, keeper).expect(200);
    await ping(second, keeper).expect(200);
    // Both instances list the key as revoked.
    for (const host of [first, second]) {
      const view = (await host.keys.list('acct_rev')).find((key) => key.id === created.apiKey.id);
      expect(view?.revoked_at).toEqual(
        expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      );
    }
  });

  it('is seen by the instance that did not revoke even under a burst of concurrent requests', async () => {
    const key = await second.createKey('acct_burst', 'test');
    const id = (await second.keys.list('acct_burst'))[0].id;
    const warm = await Promise.all(Array.from({ length: 10 }, () => ping(second, key)));
    expect(warm.map((res) => res.status)).toEqual(Array(10).fill(200));

    await first.keys.revoke('acct_burst', id);

    const after = await Promise.all(Array.from({ length: 10 }, () => ping(second, key)));
    expect(after.map((res) => res.status)).toEqual(Array(10).fill(401));
  });

  it('is seen at once by an instance whose DataSource caches every query', async () => {
    const cached = await createTestHost({
      db,
      keepDatabase: true,
      cache: { alwaysEnabled: true, duration: 60_000 },
      module: LIMITED,
    });
    try {
      const created = await cached.keys.create({
        accountId: 'acct_cached',
        name: 'cached',
        mode: 'live',
        scopes: [],
        creatorScopes: [],
      });
      const me = () =>
        request(cached.app.getHttpServer()).get('/v1/me').set('Authorization', `Bearer ${created.key}`);
      // Warm: the lookups, the listing and the retrieval have all run once.
      await me().expect(200);
      expect((await cached.keys.list('acct_cached'))[0].revoked_at).toBeNull();
      expect((await cached.keys.retrieve('acct_cached', created.apiKey.id)).revoked_at).toBeNull();

      await cached.keys.revoke('acct_cached', created.apiKey.id);

      await me().expect(401);
      await ping(cached, created.key).expect(401);
      expect((await cached.keys.list('acct_cached'))[0].revoked_at).not.toBeNull();
      expect((await cached.keys.retrieve('acct_cached', created.apiKey.id)).revoked_at).not.toBeNull();
    } finally {
      await cached.close();
    }
  });

  it('is idempotent and answers resource_missing for an unknown key id, from either instance', async () => {
    const created = await first.keys.create({
      accountId: 'acct_twice',
      name: 'twice',
      mode: 'test',
      scopes: [],
      creatorScopes: [],
    });
    await first.keys.revoke('acct_twice', created.apiKey.id);
    await expect(second.keys.revoke('acct_twice', created.apiKey.id)).resolves.toBeUndefined();
    const [view] = await second.keys.list('acct_twice');
    const [again] = await first.keys.list('acct_twice');
    // Revoking again does not move revoked_at.
    expect(again.revoked_at).toBe(view.revoked_at);
    await expect(second.keys.revoke('acct_twice', 'key_unknown')).rejects.toMatchObject({
      code: 'resource_missing',
    });
    await ping(second, created.key).expect(401);
  });

  it('is read from the database once by an instance that knows the key, and refused there at once', async () => {
    const key = await second.createKey('acct_known', 'test');
    const id = (await second.keys.list('acct_known'))[0].id;
    const reads = jest.spyOn(second.keys, 'authenticate');
    try {
      for (let i = 0; i < 5; i++) await ping(second, key).expect(200);
      expect(reads).toHaveBeenCalledTimes(1);

      await first.keys.revoke('acct_known', id);

      await ping(second, key).expect(401);
      await ping(second, key).expect(401);
    } finally {
      reads.mockRestore();
    }
  });

  it("marks nothing for another account's key id: that key still works on every instance", async () => {
    const key = await first.createKey('acct_owner', 'test');
    const id = (await first.keys.list('acct_owner'))[0].id;
    await ping(second, key).expect(200);
    await expect(second.keys.revoke('acct_intruder', id)).rejects.toMatchObject({ code: 'resource_missing' });
    await ping(first, key).expect(200);
    await ping(second, key).expect(200);
  });

  it('fails, leaving the key valid, when Redis does not take the revocation mark', async () => {
    const cut = await createTestHost({
      db,
      keepDatabase: true,
      module: { ...LIMITED, redis: { host: '127.0.0.1', port: 1 } },
    });
    try {
      const key = await cut.createKey('acct_cut', 'test');
      const id = (await cut.keys.list('acct_cut'))[0].id;
      await expect(cut.keys.revoke('acct_cut', id)).rejects.toMatchObject({ code: 'api_error' });
      expect((await cut.keys.retrieve('acct_cut', id)).revoked_at).toBeNull();
      await ping(cut, key).expect(200);
      await ping(first, key).expect(200);
    } finally {
      await cut.close();
    }
  });

  it('is refused at once without rate limits, where no instance keeps keys', async () => {
    const unlimited = await createTestHost({ db, keepDatabase: true, module: { rateLimit: false } });
    try {
      const key = await unlimited.createKey('acct_unlimited', 'test');
      const id = (await unlimited.keys.list('acct_unlimited'))[0].id;
      for (let i = 0; i < 3; i++) await ping(unlimited, key).expect(200);
      await unlimited.keys.revoke('acct_unlimited', id);
      await ping(unlimited, key).expect(401);
    } finally {
      await unlimited.close();
    }
  });
});
