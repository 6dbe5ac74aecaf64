import { Body, Controller, Get, Post, UseFilters, UseGuards } from '@nestjs/common';
import request from 'supertest';
import {
  ApiExceptionFilter,
  ApiKeyGuard,
  ApiKeysService,
  ApiV1Controller,
  type CreatedApiKey,
  RequireScopes,
  type Scope,
  SCOPES,
} from '../lib/index.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/** README: the guard "can also be applied one by one": here without the module's filter. */
@Controller('guarded_alone')
@UseGuards(ApiKeyGuard)
@RequireScopes('billing:read')
class GuardAloneController {
  @Get()
  get(): { ok: boolean } {
    return { ok: true };
  }
}

/** The guard and a filter the host made itself, as `@UseFilters(new ApiExceptionFilter())`. */
@Controller('filtered_by_instance')
@UseGuards(ApiKeyGuard)
@UseFilters(new ApiExceptionFilter())
class FilterInstanceController {
  @Get()
  get(): { ok: boolean } {
    return { ok: true };
  }
}

/** How @RequireScopes combine: stacked ones add up, a method's replaces the class's. */
@ApiV1Controller('invitations')
@RequireScopes('candidates:read')
class InvitationsController {
  @Get()
  list(): { route: string } {
    return { route: 'list' };
  }

  @Get('send')
  @RequireScopes('invitations:send')
  send(): { route: string } {
    return { route: 'send' };
  }

  @Get('export')
  @RequireScopes('results:read')
  @RequireScopes('results:export')
  export(): { route: string } {
    return { route: 'export' };
  }

  @Get('open')
  @RequireScopes()
  open(): { route: string } {
    return { route: 'open' };
  }
}

@ApiV1Controller('billing')
@RequireScopes('billing:read')
@RequireScopes('developers:manage')
class BillingController {
  @Get()
  get(): { route: string } {
    return { route: 'billing' };
  }
}

/** The host's dashboard creating keys, with the host's own (Nest's default) error handling. */
@Controller('dashboard/keys')
class DashboardKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  create(@Body() body: { scopes: Scope[] }): Promise<CreatedApiKey> {
    return this.keys.create({
      accountId: 'acct_dashboard',
      name: 'from the dashboard',
      mode: 'test',
      scopes: body.scopes,
      creatorScopes: ['results:read'],
    });
  }
}

describe('API keys and the bearer guard', () => {
  let host: TestHost;
  let testKey: string;
  let liveKey: string;

  beforeAll(async () => {
    host = await createTestHost({
      controllers: [
        GuardAloneController,
        FilterInstanceController,
        DashboardKeysController,
        InvitationsController,
        BillingController,
      ],
    });
    testKey = await host.createKey('acct_a', 'test');
    liveKey = await host.createKey('acct_a', 'live');
  });
  afterAll(() => host.close());

  const get = (path: string, key?: string) => {
    const req = request(host.app.getHttpServer()).get(path);
    return key ? req.set('Authorization', `Bearer ${key}`) : req;
  };

  describe('GET /v1/ping', () => {
    it('answers the key mode', async () => {
      const test = await get('/v1/ping', testKey).expect(200);
      expect(test.body).toEqual({ object: 'ping', livemode: false });
      const live = await get('/v1/ping', liveKey).expect(200);
      expect(live.body).toEqual({ object: 'ping', livemode: true });
    });

    it.each([
      ['no header', undefined],
      ['a malformed header', 'Token abc'],
      ['an unknown key with a valid shape', 'iv_test_' + 'A'.repeat(38)],
    ])('refuses %s with 401 invalid_api_key', async (_name, header) => {
      const req = request(host.app.getHttpServer()).get('/v1/ping');
      if (header) req.set('Authorization', header);
      const res = await req.expect(401);
      expect(res.body).toEqual({
        error: { type: 'authentication_error', code: 'invalid_api_key', message: expect.any(String) },
      });
    });

    it.each(['bearer', 'BEARER', 'bEaReR'])(
      'accepts the scheme written %s: it is case-insensitive (RFC 7235 §2.1)',
      async (scheme) => {
        const res = await request(host.app.getHttpServer())
          .get('/v1/ping')
          .set('Authorization', `${scheme} ${testKey}`)
          .expect(200);
        expect(res.body).toEqual({ object: 'ping', livemode: false });
      },
    );

    it.each(['Basic', 'basic'])(
      'accepts the key as the user name of %s credentials with no password (curl -u <key>:)',
      async (scheme) => {
        const credentials = Buffer.from(`${liveKey}:`).toString('base64');
        const res = await request(host.app.getHttpServer())
          .get('/v1/ping')
          .set('Authorization', `${scheme} ${credentials}`)
          .expect(200);
        expect(res.body).toEqual({ object: 'ping', livemode: true });
      },
    );

    it.each([
      ['the key as the password', () => `:${testKey}`],
      ['a password besides the key', () => `${testKey}:secret`],
      ['no colon', () => testKey],
    ])('refuses Basic credentials with %s', async (_name, credentials) => {
      const res = await request(host.app.getHttpServer())
        .get('/v1/ping')
        .set('Authorization', `Basic ${Buffer.from(credentials()).toString('base64')}`)
        .expect(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    });

    it('refuses Basic credentials that are not base64', async () => {
      await request(host.app.getHttpServer())
        .get('/v1/ping')
        .set('Authorization', `Basic ${testKey}:`)
        .expect(401);
    });

    it('refuses a key with one character changed (checksum) and a key of another prefix', async () => {
      const flipped = testKey.slice(0, 12) + (testKey[12] === 'a' ? 'b' : 'a') + testKey.slice(13);
      await get('/v1/ping', flipped).expect(401);
      await get('/v1/ping', testKey.replace(/^iv_/, 'xx_')).expect(401);
    });
  });

  describe('WWW-Authenticate (RFC 7235 §3.1, RFC 6750 §3)', () => {
    it.each([
      ['a module route', '/v1/ping'],
      ['an unknown /v1 route', '/v1/nope'],
      ['a host route with the guard alone', '/guarded_alone'],
      ['a host route with a filter instance of its own', '/filtered_by_instance'],
    ])('names the scheme and realm on every 401 of %s', async (_name, path) => {
      for (const header of [undefined, 'Token abc', 'Bearer iv_test_' + 'A'.repeat(38)]) {
        const req = request(host.app.getHttpServer()).get(path);
        if (header) req.set('Authorization', header);
        const res = await req.expect(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="Interview"');
      }
    });

    it('is not sent with any other answer', async () => {
      expect((await get('/v1/ping', testKey).expect(200)).headers['www-authenticate']).toBeUndefined();
      const narrow = await host.createKey('acct_a', 'test', ['billing:read']);
      expect((await get('/v1/sessions', narrow).expect(403)).headers['www-authenticate']).toBeUndefined();
    });

    it("takes the realm from the module's serviceName", async () => {
      const acme = await createTestHost({ module: { serviceName: 'Acme' } });
      try {
        const res = await request(acme.app.getHttpServer()).get('/v1/ping').expect(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="Acme"');
      } finally {
        await acme.close();
      }
    });
  });

  describe('GET /v1/me', () => {
    it('describes the calling key without the key itself', async () => {
      const res = await get('/v1/me', liveKey).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'account_id',
          'created_at',
          'id',
          'last4',
          'last_used_at',
          'livemode',
          'name',
          'object',
          'scopes',
        ].sort(),
      );
      expect(res.body).toMatchObject({
        object: 'api_key',
        account_id: 'acct_a',
        livemode: true,
        last4: liveKey.slice(-4),
        scopes: [...SCOPES],
      });
      expect(res.body.id).toMatch(/^key_[0-9a-z]{26}$/);
      expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(JSON.stringify(res.body)).not.toContain(liveKey);
    });

    it('records last_used_at without a write per request', async () => {
      const key = await host.createKey('acct_lu', 'test');
      const first = await get('/v1/me', key).expect(200);
      // The first request only schedules the write; the next read sees it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const [view] = await host.keys.list('acct_lu');
      expect(view.last_used_at).not.toBeNull();
      expect(first.body.id).toBe(view.id);
      await get('/v1/me', key).expect(200);
      const [again] = await host.keys.list('acct_lu');
      expect(again.last_used_at).toBe(view.last_used_at);
    });
  });

  describe('scopes', () => {
    it('answers 403 insufficient_scope when the route scope is missing', async () => {
      const key = await host.createKey('acct_a', 'test', ['billing:read']);
      const res = await get('/v1/sessions', key).expect(403);
      expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
      await get('/v1/ping', key).expect(200);
    });
  });

  describe('@RequireScopes', () => {
    const status = async (path: string, scopes: Scope[]): Promise<number> =>
      (await get(path, await host.createKey('acct_scopes', 'test', scopes))).status;

    it("guards a method without its own with the class's scopes", async () => {
      expect(await status('/v1/invitations', ['candidates:read'])).toBe(200);
      expect(await status('/v1/invitations', ['invitations:send'])).toBe(403);
    });

    it("lets a method's own replace the class's", async () => {
      expect(await status('/v1/invitations/send', ['invitations:send'])).toBe(200);
      expect(await status('/v1/invitations/send', ['candidates:read'])).toBe(403);
      expect(await status('/v1/invitations/open', [])).toBe(200);
    });

    it('requires every scope of several stacked on one method', async () => {
      expect(await status('/v1/invitations/export', ['results:read'])).toBe(403);
      expect(await status('/v1/invitations/export', ['results:export'])).toBe(403);
      expect(await status('/v1/invitations/export', ['results:read', 'results:export'])).toBe(200);
    });

    it('requires every scope of several stacked on one class', async () => {
      const res = await get('/v1/billing', await host.createKey('acct_scopes', 'test', ['billing:read']));
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('developers:manage');
      expect(await status('/v1/billing', ['developers:manage'])).toBe(403);
      expect(await status('/v1/billing', ['billing:read', 'developers:manage'])).toBe(200);
    });
  });

  describe("ApiKeyGuard alone on a host controller (Nest's default filter)", () => {
    it('answers 401 and 403 in the envelope, and lets a key with the scope through', async () => {
      const none = await get('/guarded_alone');
      expect({ status: none.status, body: none.body }).toEqual({
        status: 401,
        body: errorEnvelope('authentication_error', 'invalid_api_key'),
      });
      const unknown = await get('/guarded_alone', 'iv_test_' + 'A'.repeat(38));
      expect(unknown.status).toBe(401);
      const narrow = await get('/guarded_alone', await host.createKey('acct_a', 'test', ['results:read']));
      expect({ status: narrow.status, body: narrow.body }).toEqual({
        status: 403,
        body: errorEnvelope('permission_error', 'insufficient_scope'),
      });
      expect((await get('/guarded_alone', testKey).expect(200)).body).toEqual({ ok: true });
    });
  });

  describe("ApiKeysService errors in a host's own route", () => {
    it('answer 400 parameter_invalid in the envelope, not 500', async () => {
      const res = await request(host.app.getHttpServer())
        .post('/dashboard/keys')
        .send({ scopes: ['results:read', 'billing:read'] });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: errorEnvelope('invalid_request_error', 'parameter_invalid', 'scopes'),
      });
      expect(res.body.error.message).toContain('billing:read');
      expect(await host.keys.list('acct_dashboard')).toEqual([]);
    });
  });

  describe('ApiKeysService', () => {
    it('creates keys of the configured format with at least 128 random bits', async () => {
      const { key, apiKey } = await host.keys.create({
        accountId: 'acct_b',
        name: 'CI',
        mode: 'live',
        scopes: ['results:read'],
        creatorScopes: ['results:read', 'developers:manage'],
      });
      expect(key).toMatch(/^iv_live_[0-9A-Za-z]{38}$/);
      expect(apiKey).toMatchObject({
        name: 'CI',
        livemode: true,
        scopes: ['results:read'],
        last4: key.slice(-4),
      });
      expect(JSON.stringify(await host.keys.list('acct_b'))).not.toContain(key);
    });

    it('refuses a scope the creator does not hold, and stores nothing', async () => {
      await expect(
        host.keys.create({
          accountId: 'acct_c',
          name: 'too wide',
          mode: 'test',
          scopes: ['results:read', 'billing:read'],
          creatorScopes: ['results:read'],
        }),
      ).rejects.toMatchObject({
        code: 'parameter_invalid',
        param: 'scopes',
        message: expect.stringContaining('billing:read'),
      });
      expect(await host.keys.list('acct_c')).toEqual([]);
    });

    it('refuses an unknown scope', async () => {
      await expect(
        host.keys.create({
          accountId: 'acct_c',
          name: 'x',
          mode: 'test',
          scopes: ['results:write' as never],
          creatorScopes: [...SCOPES],
        }),
      ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'scopes' });
    });

    it.each([
      ['accountId', { accountId: 'acct_\u0000d', name: 'nul' }],
      ['name', { accountId: 'acct_d', name: 'a\u0000b' }],
    ])('refuses a NUL character in %s, naming it, and stores nothing', async (param, fields) => {
      await expect(
        host.keys.create({ ...fields, mode: 'test', scopes: ['results:read'], creatorScopes: [...SCOPES] }),
      ).rejects.toMatchObject({ code: 'parameter_invalid', param });
      expect(await host.keys.list('acct_d')).toEqual([]);
    });

    // PostgreSQL stores any half as U+FFFD: "acct_\ud800" and "acct_\udfff" would be one account.
    it.each([
      ['accountId', { accountId: 'acct_d\ud800', name: 'half' }],
      ['name', { accountId: 'acct_d', name: 'a\udfffb' }],
    ])('refuses half a surrogate pair in %s, naming it, and stores nothing', async (param, fields) => {
      await expect(
        host.keys.create({ ...fields, mode: 'test', scopes: ['results:read'], creatorScopes: [...SCOPES] }),
      ).rejects.toMatchObject({ code: 'parameter_invalid', param });
      expect(await host.keys.list('acct_d')).toEqual([]);
    });

    describe('list, retrieve and revoke refuse what cannot name an account or a key', () => {
      let keyId: string;
      let key: string;

      beforeAll(async () => {
        key = await host.createKey('acct_lookup', 'test');
        keyId = (await host.keys.list('acct_lookup'))[0].id;
      });

      it.each([
        ['a NUL character', 'acct_\u0000lookup'],
        ['undefined', undefined],
        ['an empty string', ''],
      ])(
        'answers an account id holding %s with parameter_invalid naming accountId',
        async (_name, account) => {
          const accountId = account as string;
          for (const call of [
            () => host.keys.list(accountId),
            () => host.keys.retrieve(accountId, keyId),
            () => host.keys.revoke(accountId, keyId),
          ]) {
            await expect(call()).rejects.toMatchObject({ code: 'parameter_invalid', param: 'accountId' });
          }
          await get('/v1/ping', key).expect(200);
        },
      );

      it.each([
        ['a NUL character', 'key_\u0000x'],
        ['a NUL character after a real id', null],
        ['undefined', undefined],
      ])('answers a key id holding %s with resource_missing and revokes nothing', async (_name, given) => {
        const id = (given === null ? `${keyId}\u0000` : given) as string;
        await expect(host.keys.retrieve('acct_lookup', id)).rejects.toMatchObject({
          code: 'resource_missing',
          param: 'id',
        });
        await expect(host.keys.revoke('acct_lookup', id)).rejects.toMatchObject({
          code: 'resource_missing',
          param: 'id',
        });
        await get('/v1/ping', key).expect(200);
        expect((await host.keys.list('acct_lookup'))[0].revoked_at).toBeNull();
      });
    });

    it('revokes at once: the next request is 401', async () => {
      const created = await host.keys.create({
        accountId: 'acct_d',
        name: 'temp',
        mode: 'test',
        scopes: [],
        creatorScopes: [],
      });
      await get('/v1/ping', created.key).expect(200);
      await host.keys.revoke('acct_d', created.apiKey.id);
      await get('/v1/ping', created.key).expect(401);
      const [view] = await host.keys.list('acct_d');
      expect(view.revoked_at).not.toBeNull();
    });

    it('does not revoke another account key', async () => {
      const created = await host.keys.create({
        accountId: 'acct_e',
        name: 'x',
        mode: 'test',
        scopes: [],
        creatorScopes: [],
      });
      await expect(host.keys.revoke('acct_other', created.apiKey.id)).rejects.toMatchObject({
        code: 'resource_missing',
      });
      await get('/v1/ping', created.key).expect(200);
    });
  });
});
