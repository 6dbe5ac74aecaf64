import { Webhook } from 'standardwebhooks';
import type { Response } from 'supertest';
import { DataSource, type EntitySubscriberInterface } from 'typeorm';
import { DeliveryEntity, EventPublisher, WebhookEndpointEntity } from '../lib/index.js';
import { type ApiClient, apiClient, ISO_MS, sleep, walkPages } from './support/api-client.js';
import { errorEnvelope, expectParameterInvalid, expectResourceMissing } from './support/api-error.js';
import { DB_KIND } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver } from './support/receiver.js';

interface EndpointBody {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  description: string | null;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  livemode: boolean;
  created_at: string;
  updated_at: string;
  secret?: string;
}

interface DeliveryBody {
  id: string;
  status: string;
  attempt: number;
  error: string | null;
  next_attempt_at: string | null;
}

/** Every field of an endpoint, and `secret` only on create and rotate (docs/api-contract.md). */
const ENDPOINT_FIELDS = [
  'id',
  'object',
  'url',
  'description',
  'enabled_events',
  'status',
  'livemode',
  'created_at',
  'updated_at',
];

const PATH = '/v1/webhook_endpoints';

/** `whsec_` plus the standard base64 of 24 to 64 random bytes (docs/decisions.md). */
function expectWellFormedSecret(secret: unknown): void {
  expect(typeof secret).toBe('string');
  const text = secret as string;
  expect(text.startsWith('whsec_')).toBe(true);
  const encoded = text.slice('whsec_'.length);
  const bytes = Buffer.from(encoded, 'base64');
  expect(bytes.toString('base64')).toBe(encoded);
  expect(bytes.length).toBeGreaterThanOrEqual(24);
  expect(bytes.length).toBeLessThanOrEqual(64);
}

function expectNoSecret(body: unknown, ...secrets: string[]): void {
  const text = JSON.stringify(body);
  expect(text).not.toContain('"secret"');
  expect(text).not.toContain('whsec_');
  for (const secret of secrets) expect(text).not.toContain(secret.slice('whsec_'.length));
}

describe('webhook endpoints', () => {
  let host: TestHost;
  let receiver: Receiver;
  /** acct_a, test mode, every scope. */
  let api: ApiClient;
  let apiLive: ApiClient;
  let apiOtherAccount: ApiClient;
  let apiWithoutScope: ApiClient;
  let account = 0;

  /** A fresh account per test keeps lists and counts independent of the other tests. */
  async function freshAccount(mode: 'test' | 'live' = 'test'): Promise<{ id: string; api: ApiClient }> {
    const id = `acct_we_${++account}`;
    return { id, api: apiClient(host, await host.createKey(id, mode)) };
  }

  async function createEndpoint(
    client: ApiClient,
    body: Record<string, unknown> = {},
  ): Promise<EndpointBody> {
    const res = await client.post(PATH, { url: receiver.url, enabled_events: ['result.ready'], ...body });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function listIds(client: ApiClient): Promise<string[]> {
    const res = await client.get(PATH, { limit: 100 });
    expect(res.status).toBe(200);
    return (res.body.data as EndpointBody[]).map((endpoint) => endpoint.id);
  }

  beforeAll(async () => {
    host = await createTestHost({
      module: {
        webhooks: {
          allowInsecureUrls: true,
          // Long enough that a pending retry is reliably still waiting when the test acts on it.
          retryScheduleMs: [2000, 2000],
          timeoutMs: 2000,
          sweepIntervalMs: 1000,
        },
      },
    });
    receiver = await Receiver.start();
    [api, apiLive, apiOtherAccount, apiWithoutScope] = await Promise.all([
      host.createKey('acct_a', 'test').then((key) => apiClient(host, key)),
      host.createKey('acct_a', 'live').then((key) => apiClient(host, key)),
      host.createKey('acct_b', 'test').then((key) => apiClient(host, key)),
      host
        .createKey('acct_a', 'test', ['results:read', 'candidates:read'])
        .then((key) => apiClient(host, key)),
    ]);
  });
  afterAll(async () => {
    await host.close();
    await receiver.close();
  });

  describe('scope developers:manage', () => {
    it('refuses every endpoint route to a key without it (403 insufficient_scope)', async () => {
      const endpoint = await createEndpoint(api);
      const attempts = await Promise.all([
        apiWithoutScope.post(PATH, { url: receiver.url, enabled_events: ['result.ready'] }),
        apiWithoutScope.get(PATH),
        apiWithoutScope.get(`${PATH}/${endpoint.id}`),
        apiWithoutScope.patch(`${PATH}/${endpoint.id}`, { description: 'x' }),
        apiWithoutScope.delete(`${PATH}/${endpoint.id}`),
        apiWithoutScope.post(`${PATH}/${endpoint.id}/rotate_secret`),
        apiWithoutScope.get(`${PATH}/${endpoint.id}/deliveries`),
      ]);
      for (const res of attempts) {
        expect({ status: res.status, body: res.body }).toEqual({
          status: 403,
          body: errorEnvelope('permission_error', 'insufficient_scope'),
        });
      }
      const { secret: _secret, ...unchanged } = endpoint;
      expect((await api.get(`${PATH}/${endpoint.id}`)).body).toEqual(unchanged);
      expect(await listIds(api)).toContain(endpoint.id);
    });
  });

  describe('POST /v1/webhook_endpoints', () => {
    it('answers 201 with exactly the documented fields and a whsec_ secret', async () => {
      const { api: client } = await freshAccount();
      const before = Date.now();
      const res = await client.post(PATH, {
        url: receiver.url,
        enabled_events: ['result.ready', 'session.completed'],
        description: 'Results to the ATS',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
      expect(res.body).toEqual({
        id: expect.stringMatching(/^whk_[0-9a-z]+$/),
        object: 'webhook_endpoint',
        url: receiver.url,
        description: 'Results to the ATS',
        enabled_events: ['result.ready', 'session.completed'],
        status: 'enabled',
        livemode: false,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        secret: expect.any(String),
      });
      expectWellFormedSecret(res.body.secret);
      expect(res.body.updated_at).toBe(res.body.created_at);
      expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(res.body.created_at)).toBeLessThanOrEqual(Date.now() + 5);
    });

    it('sets livemode from the calling key, defaults description to null, and accepts ["*"]', async () => {
      const { api: live } = await freshAccount('live');
      const res = await live.post(PATH, { url: receiver.url, enabled_events: ['*'] });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ livemode: true, description: null, enabled_events: ['*'] });
    });

    it('gives every endpoint its own secret', async () => {
      const { api: client } = await freshAccount();
      const [one, two] = await Promise.all([createEndpoint(client), createEndpoint(client)]);
      expect(one.secret).not.toBe(two.secret);
      expect(one.id).not.toBe(two.id);
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      ['url is missing', { enabled_events: ['result.ready'] }, 'parameter_missing', 'url'],
      ['url is not a string', { url: 42, enabled_events: ['result.ready'] }, 'parameter_invalid', 'url'],
      ['url is relative', { url: '/hook', enabled_events: ['result.ready'] }, 'parameter_invalid', 'url'],
      [
        'url is not a URL',
        { url: 'not a url', enabled_events: ['result.ready'] },
        'parameter_invalid',
        'url',
      ],
      [
        'url has another scheme',
        { url: 'ftp://example.com/hook', enabled_events: ['result.ready'] },
        'parameter_invalid',
        'url',
      ],
      [
        'url carries credentials',
        { url: 'https://user:pass@example.com/hook', enabled_events: ['result.ready'] },
        'parameter_invalid',
        'url',
      ],
      [
        'url is too long',
        { url: `https://example.com/${'a'.repeat(2100)}`, enabled_events: ['*'] },
        'parameter_invalid',
        'url',
      ],
      [
        'enabled_events is missing',
        { url: 'https://example.com/hook' },
        'parameter_missing',
        'enabled_events',
      ],
      [
        'enabled_events is empty',
        { url: 'https://example.com/hook', enabled_events: [] },
        'parameter_invalid',
        'enabled_events',
      ],
      [
        'enabled_events names an unknown type',
        { url: 'https://example.com/hook', enabled_events: ['result.ready', 'result.deleted'] },
        'parameter_invalid',
        'enabled_events',
      ],
      [
        'enabled_events mixes "*" with a type',
        { url: 'https://example.com/hook', enabled_events: ['*', 'result.ready'] },
        'parameter_invalid',
        'enabled_events',
      ],
      [
        'enabled_events is not an array',
        { url: 'https://example.com/hook', enabled_events: 'result.ready' },
        'parameter_invalid',
        'enabled_events',
      ],
      [
        'enabled_events holds a non-string',
        { url: 'https://example.com/hook', enabled_events: [7] },
        'parameter_invalid',
        'enabled_events',
      ],
      [
        'description is too long',
        { url: 'https://example.com/hook', enabled_events: ['*'], description: 'd'.repeat(1025) },
        'parameter_invalid',
        'description',
      ],
      [
        'description is not a string',
        { url: 'https://example.com/hook', enabled_events: ['*'], description: 5 },
        'parameter_invalid',
        'description',
      ],
      [
        'an unknown field is sent',
        { url: 'https://example.com/hook', enabled_events: ['*'], secret: 'whsec_mine' },
        'parameter_invalid',
        'secret',
      ],
      [
        'status is sent (not a create parameter)',
        { url: 'https://example.com/hook', enabled_events: ['*'], status: 'disabled' },
        'parameter_invalid',
        'status',
      ],
    ])('answers 400 and creates nothing when %s', async (_case, body, code, param) => {
      const { api: client } = await freshAccount();
      const res = await client.post(PATH, body);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: errorEnvelope('invalid_request_error', code, param),
      });
      expect(await listIds(client)).toEqual([]);
    });

    it('accepts host event types registered with the eventTypes option', async () => {
      const { api: client } = await freshAccount();
      const endpoint = await createEndpoint(client, { enabled_events: ['session.completed'] });
      expect(endpoint.enabled_events).toEqual(['session.completed']);
    });

    describe('without allowInsecureUrls (the production default)', () => {
      let strict: TestHost;
      let strictApi: ApiClient;

      beforeAll(async () => {
        strict = await createTestHost({ module: { webhooks: { allowInsecureUrls: false } } });
        strictApi = apiClient(strict, await strict.createKey('acct_a', 'test'));
      });
      afterAll(() => strict.close());

      it.each([
        'http://example.com/hook',
        'https://127.0.0.1/hook',
        'https://localhost/hook',
        'https://localhost./hook',
        'https://api.localhost/hook',
        'https://10.1.2.3/hook',
        'https://192.168.0.10/hook',
        'https://172.16.0.1/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hook',
        'https://[fd00::1]/hook',
        'https://0.0.0.0/hook',
        'https://metadata.google.internal/hook',
        'http://127.0.0.1:8080/hook',
        'https://example.com\\@evil.com/hook',
        'https://@example.com/hook',
        'https:///example.com/hook',
        'https://example.com/p th',
      ])('refuses %s with 400 param url and creates nothing', async (url) => {
        const res = await strictApi.post(PATH, { url, enabled_events: ['result.ready'] });
        expectParameterInvalid(res, 'url');
        const list = await strictApi.get(PATH);
        expect(list.body.data).toEqual([]);
      });

      it('names allowInsecureUrls in the refusal outside production, and not in production', async () => {
        const hint = 'For local development, set webhooks.allowInsecureUrls: true in the module options.';
        const refusals = async (): Promise<string[]> => {
          const messages: string[] = [];
          for (const url of ['http://example.com/hook', 'https://127.0.0.1/hook', 'https://localhost/hook']) {
            const res = await strictApi.post(PATH, { url, enabled_events: ['result.ready'] });
            expectParameterInvalid(res, 'url');
            messages.push(res.body.error.message);
          }
          return messages;
        };
        const bare = [
          'url must be an absolute https URL',
          'url must not point to a private or reserved IP address',
          'url must not point to a local or internal host name',
        ];
        const nodeEnv = process.env.NODE_ENV;
        try {
          process.env.NODE_ENV = 'development';
          expect(await refusals()).toEqual(bare.map((message) => `${message}. ${hint}`));
          process.env.NODE_ENV = 'production';
          expect(await refusals()).toEqual(bare);
        } finally {
          process.env.NODE_ENV = nodeEnv;
        }
        // A URL the option would refuse too is not told to set it.
        const ftp = await strictApi.post(PATH, {
          url: 'ftp://127.0.0.1/hook',
          enabled_events: ['result.ready'],
        });
        expect(ftp.body.error.message).toBe('url must be an absolute https URL');
        expect((await strictApi.get(PATH)).body.data).toEqual([]);
      });

      it('accepts a public https URL', async () => {
        const res = await strictApi.post(PATH, {
          url: 'https://hooks.example.com/interview',
          enabled_events: ['result.ready'],
        });
        expect(res.status).toBe(201);
        expect(res.body.url).toBe('https://hooks.example.com/interview');
        await strictApi.delete(`${PATH}/${res.body.id}`);
      });

      it('lets a PATCH send back a stored url that later rules refuse, unchanged, and refuses a new one', async () => {
        const created = await strictApi.post(PATH, {
          url: 'https://hooks.example.com/a',
          enabled_events: ['result.ready'],
        });
        expect(created.status).toBe(201);
        // Stored before spaces were refused.
        const stored = 'https://hooks.example.com/old path';
        await strict.app
          .get(DataSource)
          .getRepository(WebhookEndpointEntity)
          .update({ id: created.body.id }, { url: stored });
        const renamed = await strictApi.patch(`${PATH}/${created.body.id}`, {
          url: stored,
          description: 'renamed',
        });
        expect(renamed.status).toBe(200);
        expect(renamed.body).toMatchObject({ url: stored, description: 'renamed' });
        expectParameterInvalid(
          await strictApi.patch(`${PATH}/${created.body.id}`, { url: 'https://hooks.example.com/new path' }),
          'url',
        );
        await strictApi.delete(`${PATH}/${created.body.id}`);
      });

      it('refuses a private URL on PATCH too, leaving the endpoint unchanged', async () => {
        const created = await strictApi.post(PATH, {
          url: 'https://hooks.example.com/a',
          enabled_events: ['result.ready'],
        });
        expect(created.status).toBe(201);
        const res = await strictApi.patch(`${PATH}/${created.body.id}`, { url: 'https://127.0.0.1/hook' });
        expectParameterInvalid(res, 'url');
        const after = await strictApi.get(`${PATH}/${created.body.id}`);
        expect(after.body.url).toBe('https://hooks.example.com/a');
        expect(after.body.updated_at).toBe(created.body.updated_at);
        await strictApi.delete(`${PATH}/${created.body.id}`);
      });
    });
  });

  describe('GET /v1/webhook_endpoints', () => {
    it('lists the account and mode endpoints in the envelope, newest first, never with a secret', async () => {
      const { api: client } = await freshAccount();
      const created: EndpointBody[] = [];
      for (let i = 0; i < 5; i++) {
        created.push(await createEndpoint(client, { description: `endpoint ${i}` }));
      }
      const res = await client.get(PATH);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        object: 'list',
        data: expect.any(Array),
        has_more: false,
        next_cursor: null,
      });
      const withoutSecret = created.map(({ secret: _secret, ...rest }) => rest);
      expect(res.body.data).toEqual([...withoutSecret].reverse());
      for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual([...ENDPOINT_FIELDS].sort());
      expectNoSecret(res.body, ...created.map((endpoint) => endpoint.secret!));
    });

    it('pages with limit and next_cursor, every endpoint exactly once', async () => {
      const { api: client } = await freshAccount();
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await createEndpoint(client)).id);
      const first = await client.get(PATH, { limit: 2 });
      expect(first.status).toBe(200);
      expect(first.body.data.map((e: EndpointBody) => e.id)).toEqual([created[4], created[3]]);
      expect(first.body.has_more).toBe(true);
      expect(typeof first.body.next_cursor).toBe('string');
      const pages = await walkPages<EndpointBody>(client, PATH, { limit: 2 });
      expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
      expect(pages.flatMap((page) => page.data.map((e) => e.id))).toEqual([...created].reverse());
      expect(pages[2]).toMatchObject({ has_more: false, next_cursor: null });
    });

    it('does not list the endpoints of another account or of the other mode', async () => {
      const { api: client } = await freshAccount();
      const mine = await createEndpoint(client);
      const { id: accountId } = await freshAccount();
      const live = apiClient(host, await host.createKey(accountId, 'live'));
      const other = apiClient(host, await host.createKey(accountId, 'test'));
      expect(await listIds(client)).toEqual([mine.id]);
      expect(await listIds(live)).toEqual([]);
      expect(await listIds(other)).toEqual([]);
    });

    it('refuses limit out of range', async () => {
      expectParameterInvalid(await api.get(PATH, { limit: 0 }), 'limit');
      expectParameterInvalid(await api.get(PATH, { limit: 101 }), 'limit');
    });
  });

  describe('GET /v1/webhook_endpoints/:id', () => {
    it('answers the endpoint as created, without the secret', async () => {
      const created = await createEndpoint(api, { description: 'retrieve me' });
      const res = await api.get(`${PATH}/${created.id}`);
      expect(res.status).toBe(200);
      const { secret, ...expected } = created;
      expect(res.body).toEqual(expected);
      expectNoSecret(res.body, secret!);
    });

    it('answers 404 resource_missing for an unknown id', async () => {
      expectResourceMissing(await api.get(`${PATH}/whk_doesnotexist`));
    });
  });

  describe('PATCH /v1/webhook_endpoints/:id', () => {
    it('updates url, enabled_events and description, moving updated_at on every change', async () => {
      const created = await createEndpoint(api, { description: 'first' });
      const secret = created.secret!;
      let previous = created;
      const changes: Record<string, unknown>[] = [
        { url: `${receiver.url}?v=2` },
        { enabled_events: ['result.updated', 'session.completed'] },
        { description: 'second' },
        { description: null },
        { url: `${receiver.url}?v=3`, enabled_events: ['*'], description: 'third' },
      ];
      for (const change of changes) {
        await sleep(5);
        const res = await api.patch(`${PATH}/${created.id}`, change);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_FIELDS].sort());
        expect(res.body).toEqual({
          ...previous,
          secret: undefined,
          ...change,
          updated_at: expect.stringMatching(ISO_MS),
        });
        expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(previous.updated_at));
        expect(res.body.created_at).toBe(created.created_at);
        expectNoSecret(res.body, secret);
        const stored = await api.get(`${PATH}/${created.id}`);
        expect(stored.body).toEqual(res.body);
        previous = res.body;
      }
    });

    it('disabled: true makes the endpoint disabled, disabled: false enables it again', async () => {
      const created = await createEndpoint(api);
      await sleep(5);
      const disabled = await api.patch(`${PATH}/${created.id}`, { disabled: true });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ id: created.id, status: 'disabled' });
      expect(Date.parse(disabled.body.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
      expectNoSecret(disabled.body, created.secret!);
      expect((await api.get(`${PATH}/${created.id}`)).body.status).toBe('disabled');

      await sleep(5);
      const enabled = await api.patch(`${PATH}/${created.id}`, { disabled: false });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ id: created.id, status: 'enabled' });
      expect(Object.keys(enabled.body).sort()).toEqual([...ENDPOINT_FIELDS].sort());
      expect(Date.parse(enabled.body.updated_at)).toBeGreaterThan(Date.parse(disabled.body.updated_at));
      expect((await api.get(`${PATH}/${created.id}`)).body.status).toBe('enabled');
    });

    it('leaves updated_at alone when nothing changes', async () => {
      const created = await createEndpoint(api);
      await sleep(5);
      const same = await api.patch(`${PATH}/${created.id}`, {
        url: created.url,
        enabled_events: created.enabled_events,
        disabled: false,
      });
      expect(same.status).toBe(200);
      expect(same.body.updated_at).toBe(created.updated_at);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['url is relative', { url: 'hook' }, 'url'],
      ['url is not http(s)', { url: 'ftp://example.com/hook' }, 'url'],
      ['url is null', { url: null }, 'url'],
      ['url is a number', { url: 3 }, 'url'],
      ['enabled_events is empty', { enabled_events: [] }, 'enabled_events'],
      ['enabled_events names an unknown type', { enabled_events: ['result.deleted'] }, 'enabled_events'],
      ['enabled_events mixes "*" with a type', { enabled_events: ['*', 'result.ready'] }, 'enabled_events'],
      ['enabled_events is a string', { enabled_events: 'result.ready' }, 'enabled_events'],
      ['enabled_events is null', { enabled_events: null }, 'enabled_events'],
      ['description is too long', { description: 'x'.repeat(1025) }, 'description'],
      ['description is a number', { description: 1 }, 'description'],
      ['disabled is not a boolean', { disabled: 'true' }, 'disabled'],
      ['disabled is null', { disabled: null }, 'disabled'],
      ['an unknown field is sent', { colour: 'blue' }, 'colour'],
      ['status is sent (use disabled)', { status: 'disabled' }, 'status'],
      ['secret is sent (use rotate_secret)', { secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'secret'],
      [
        'a good field comes with a bad one',
        { url: 'https://example.com/new', enabled_events: ['nope'] },
        'enabled_events',
      ],
    ])('answers 400 naming the parameter and changes nothing when %s', async (_case, body, param) => {
      const created = await createEndpoint(api, { description: 'keep me' });
      const res = await api.patch(`${PATH}/${created.id}`, body);
      expectParameterInvalid(res, param);
      const after = await api.get(`${PATH}/${created.id}`);
      const { secret: _secret, ...unchanged } = created;
      expect(after.body).toEqual(unchanged);
    });
  });

  describe('DELETE /v1/webhook_endpoints/:id', () => {
    it('answers {id, object, deleted: true}; the endpoint then answers 404 everywhere', async () => {
      const created = await createEndpoint(api);
      const res = await api.delete(`${PATH}/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: created.id, object: 'webhook_endpoint', deleted: true });
      expectResourceMissing(await api.get(`${PATH}/${created.id}`));
      expectResourceMissing(await api.patch(`${PATH}/${created.id}`, { description: 'x' }));
      expectResourceMissing(await api.post(`${PATH}/${created.id}/rotate_secret`));
      expectResourceMissing(await api.get(`${PATH}/${created.id}/deliveries`));
      expectResourceMissing(await api.delete(`${PATH}/${created.id}`));
      expect(await listIds(api)).not.toContain(created.id);
    });
  });

  describe('POST /v1/webhook_endpoints/:id/rotate_secret', () => {
    it('answers 200 with a new secret, shown nowhere afterwards', async () => {
      const created = await createEndpoint(api);
      await sleep(5);
      const res = await api.post(`${PATH}/${created.id}/rotate_secret`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
      expect(res.body).toMatchObject({ id: created.id, url: created.url, status: 'enabled' });
      expectWellFormedSecret(res.body.secret);
      expect(res.body.secret).not.toBe(created.secret);
      expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));

      const retrieved = await api.get(`${PATH}/${created.id}`);
      expectNoSecret(retrieved.body, created.secret!, res.body.secret);
      const list = await api.get(PATH, { limit: 100 });
      expectNoSecret(list.body, created.secret!, res.body.secret);
    });

    it('is never undone by PATCHes running at the same time', async () => {
      const created = await createEndpoint(api);
      const [rotated, ...patches] = await Promise.all([
        api.post(`${PATH}/${created.id}/rotate_secret`),
        ...Array.from({ length: 12 }, (_, i) =>
          api.patch(`${PATH}/${created.id}`, { description: `concurrent ${i}` }),
        ),
      ]);
      expect(rotated.status).toBe(200);
      for (const patch of patches) expect(patch.status).toBe(200);
      const stored = await host.app
        .get(DataSource)
        .getRepository(WebhookEndpointEntity)
        .findOneByOrFail({ id: created.id });
      expect(stored.secret).toBe(rotated.body.secret);
    });

    it('signs the next delivery with the new secret only', async () => {
      const { id: accountId, api: client } = await freshAccount();
      const hook = await Receiver.start();
      try {
        const created = await createEndpoint(client, { url: hook.url });
        const rotated = await client.post(`${PATH}/${created.id}/rotate_secret`);
        expect(rotated.status).toBe(200);
        await host.app.get(EventPublisher).publish({
          accountId,
          type: 'result.ready',
          livemode: false,
          data: { id: 'res_rotated', object: 'result', status: 'ready' },
        });
        const [received] = await hook.waitFor(1);
        const headers = received.headers as Record<string, string>;
        expect(() => new Webhook(rotated.body.secret).verify(received.body, headers)).not.toThrow();
        expect(() => new Webhook(created.secret!).verify(received.body, headers)).toThrow();
      } finally {
        await hook.close();
      }
    });
  });

  describe('an endpoint deleted while a request on it runs', () => {
    /** Deletes the armed endpoint as soon as a request has looked it up: a DELETE that lands between. */
    class DeleteAfterLookUp implements EntitySubscriberInterface<WebhookEndpointEntity> {
      armed: string | null = null;
      constructor(private readonly dataSource: DataSource) {
        dataSource.subscribers.push(this);
      }
      listenTo(): typeof WebhookEndpointEntity {
        return WebhookEndpointEntity;
      }
      async afterLoad(endpoint: WebhookEndpointEntity): Promise<void> {
        if (endpoint.id !== this.armed) return;
        this.armed = null;
        await this.dataSource.getRepository(WebhookEndpointEntity).delete({ id: endpoint.id });
      }
    }
    let deleteAfterLookUp: DeleteAfterLookUp;

    beforeAll(() => {
      deleteAfterLookUp = new DeleteAfterLookUp(host.app.get(DataSource));
    });
    afterAll(() => {
      const subscribers = host.app.get(DataSource).subscribers;
      subscribers.splice(subscribers.indexOf(deleteAfterLookUp), 1);
    });

    it.each<[string, (id: string) => Promise<Response>]>([
      ['PATCH', (id) => api.patch(`${PATH}/${id}`, { description: 'changed' })],
      ['PATCH disabled: true', (id) => api.patch(`${PATH}/${id}`, { disabled: true })],
      ['rotate_secret', (id) => api.post(`${PATH}/${id}/rotate_secret`)],
    ])('%s answers 404 and writes nothing', async (_route, send) => {
      const created = await createEndpoint(api);
      deleteAfterLookUp.armed = created.id;
      expectResourceMissing(await send(created.id));
      expect(deleteAfterLookUp.armed).toBeNull();
      expect(
        await host.app.get(DataSource).getRepository(WebhookEndpointEntity).countBy({ id: created.id }),
      ).toBe(0);
    });

    it('test answers 404 and leaves no webhook.test event in the feed', async () => {
      const created = await createEndpoint(api);
      deleteAfterLookUp.armed = created.id;
      expectResourceMissing(await api.post(`${PATH}/${created.id}/test`));
      expect(deleteAfterLookUp.armed).toBeNull();
      const events = await api.get('/v1/events', { type: 'webhook.test', limit: 100 });
      expect(events.status).toBe(200);
      const about = (events.body.data as { data: { object: { id: string } } }[]).filter(
        (event) => event.data.object.id === created.id,
      );
      expect(about).toEqual([]);
    });
  });

  describe('another account or the other mode', () => {
    it('answers 404 on GET, PATCH, DELETE and rotate_secret, and changes nothing', async () => {
      const created = await createEndpoint(api, { description: 'acct_a test' });
      for (const stranger of [apiOtherAccount, apiLive]) {
        expectResourceMissing(await stranger.get(`${PATH}/${created.id}`));
        expectResourceMissing(await stranger.patch(`${PATH}/${created.id}`, { disabled: true }));
        expectResourceMissing(await stranger.post(`${PATH}/${created.id}/rotate_secret`));
        expectResourceMissing(await stranger.delete(`${PATH}/${created.id}`));
        expectResourceMissing(await stranger.get(`${PATH}/${created.id}/deliveries`));
      }
      const after = await api.get(`${PATH}/${created.id}`);
      const { secret: _secret, ...unchanged } = created;
      expect(after.body).toEqual(unchanged);
    });
  });

  describe('the secret never leaks', () => {
    it('appears in no list, retrieve, patch or event, test events included', async () => {
      const { api: client } = await freshAccount();
      const created = await createEndpoint(client, { enabled_events: ['*'] });
      const rotated = await client.post(`${PATH}/${created.id}/rotate_secret`);
      const secrets = [created.secret!, rotated.body.secret as string];
      const bodies: unknown[] = [
        (await client.get(PATH)).body,
        (await client.get(`${PATH}/${created.id}`)).body,
        (await client.patch(`${PATH}/${created.id}`, { description: 'patched' })).body,
      ];
      const test = await client.post(`${PATH}/${created.id}/test`);
      expect(test.status).toBe(201);
      const events = await client.get('/v1/events');
      expect(events.body.data.length).toBeGreaterThan(0);
      bodies.push(events.body, (await client.get(`/v1/events/${test.body.event_id}`)).body);
      const sent = await eventually(async () =>
        receiver.requests.find((request) => request.headers['webhook-id'] === test.body.event_id),
      );
      expect(JSON.parse(sent.body).data.object).toMatchObject({ id: created.id, object: 'webhook_endpoint' });
      bodies.push(sent.body);
      for (const body of bodies) expectNoSecret(body, ...secrets);
    });
  });

  describe('disabling or deleting drops pending retries', () => {
    let failing: Receiver;
    let accountId: string;
    let client: ApiClient;

    beforeEach(async () => {
      failing = await Receiver.start((_req, _i, res) => res.writeHead(500).end('down'));
      ({ id: accountId, api: client } = await freshAccount());
    });
    afterEach(() => failing.close());

    /** Publishes to a new endpoint on the failing receiver; resolves once its retry is pending. */
    async function pendingRetry(): Promise<{ endpoint: EndpointBody; delivery: DeliveryBody }> {
      const endpoint = await createEndpoint(client, { url: failing.url });
      const event = await host.app.get(EventPublisher).publish({
        accountId,
        type: 'result.ready',
        livemode: false,
        data: { id: 'res_retry', object: 'result', status: 'ready' },
      });
      const delivery = await eventually(async () => {
        const res = await client.get(`${PATH}/${endpoint.id}/deliveries`);
        const [first] = res.body.data as DeliveryBody[];
        return first?.status === 'pending' && first.attempt === 1 && first.next_attempt_at
          ? first
          : undefined;
      });
      expect(failing.requests).toHaveLength(1);
      expect(failing.requests[0].headers['webhook-id']).toBe(event.id);
      return { endpoint, delivery };
    }

    /** Waits until the dropped retry would have run (plus a sweep and a margin). */
    async function waitPast(delivery: DeliveryBody): Promise<void> {
      const wait = Date.parse(delivery.next_attempt_at!) + 2500 - Date.now();
      if (wait > 0) await sleep(wait);
    }

    it('drops pending retries when disabled: failed, endpoint_disabled, in the same request', async () => {
      const { endpoint, delivery } = await pendingRetry();
      const res = await client.patch(`${PATH}/${endpoint.id}`, { disabled: true });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('disabled');
      const after = await client.get(`${PATH}/${endpoint.id}/deliveries`);
      expect(after.body.data).toEqual([
        expect.objectContaining({
          id: delivery.id,
          status: 'failed',
          attempt: 1,
          error: 'endpoint_disabled',
          next_attempt_at: null,
        }),
      ]);
      await waitPast(delivery);
      expect(failing.requests).toHaveLength(1);
      const later = await client.get(`${PATH}/${endpoint.id}/deliveries/${delivery.id}`);
      expect(later.body).toMatchObject({ status: 'failed', attempt: 1, error: 'endpoint_disabled' });
    });

    it('sends no event to a disabled endpoint; enabling it again sends new events only', async () => {
      const { endpoint, delivery } = await pendingRetry();
      await client.patch(`${PATH}/${endpoint.id}`, { disabled: true });
      failing.respondWith((_req, _i, res) => res.writeHead(200).end('ok'));
      const publisher = host.app.get(EventPublisher);
      const whileDisabled = await publisher.publish({
        accountId,
        type: 'result.ready',
        livemode: false,
        data: { id: 'res_while_disabled', object: 'result', status: 'ready' },
      });
      expect(
        await host.app.get(DataSource).getRepository(DeliveryEntity).countBy({ eventId: whileDisabled.id }),
      ).toBe(0);

      const enabled = await client.patch(`${PATH}/${endpoint.id}`, { disabled: false });
      expect(enabled.body.status).toBe('enabled');
      const fresh = await publisher.publish({
        accountId,
        type: 'result.ready',
        livemode: false,
        data: { id: 'res_after_enable', object: 'result', status: 'ready' },
      });
      const received = await failing.waitFor(2);
      expect(received[1].headers['webhook-id']).toBe(fresh.id);
      await waitPast(delivery);
      // The dropped retry stays dropped; the event published while disabled is never sent.
      expect(failing.requests.map((r) => r.headers['webhook-id'])).toEqual([
        failing.requests[0].headers['webhook-id'],
        fresh.id,
      ]);
      const dropped = await client.get(`${PATH}/${endpoint.id}/deliveries/${delivery.id}`);
      expect(dropped.body).toMatchObject({ status: 'failed', error: 'endpoint_disabled' });
    });

    it('drops pending retries when deleted: failed, endpoint_deleted', async () => {
      const { endpoint, delivery } = await pendingRetry();
      const res = await client.delete(`${PATH}/${endpoint.id}`);
      expect(res.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
      const deliveries = host.app.get(DataSource).getRepository(DeliveryEntity);
      const row = await deliveries.findOneByOrFail({ id: delivery.id });
      expect(row).toMatchObject({
        endpointId: endpoint.id,
        status: 'failed',
        attempt: 1,
        error: 'endpoint_deleted',
        nextAttemptAt: null,
        lockedUntil: null,
      });
      expect(
        await host.app.get(DataSource).getRepository(WebhookEndpointEntity).countBy({ id: endpoint.id }),
      ).toBe(0);
      await waitPast(delivery);
      expect(failing.requests).toHaveLength(1);
      expect(await deliveries.findOneByOrFail({ id: delivery.id })).toMatchObject({
        status: 'failed',
        attempt: 1,
        error: 'endpoint_deleted',
      });
    });
  });
});

describe('the cap on endpoints per account and mode (webhooks.maxEndpoints)', () => {
  const MAX = 3;
  let host: TestHost;
  let accounts = 0;

  const url = 'https://hooks.example.com/cap';
  const create = (client: ApiClient): Promise<{ status: number; body: Record<string, unknown> }> =>
    client.post(PATH, { url, enabled_events: ['*'] });
  const count = (accountId: string, livemode: boolean, on: TestHost = host): Promise<number> =>
    on.app.get(DataSource).getRepository(WebhookEndpointEntity).countBy({ accountId, livemode });
  async function freshKey(mode: 'test' | 'live' = 'test'): Promise<{ accountId: string; client: ApiClient }> {
    const accountId = `acct_cap_${++accounts}`;
    return { accountId, client: apiClient(host, await host.createKey(accountId, mode)) };
  }

  beforeAll(async () => {
    host = await createTestHost({ module: { worker: false, webhooks: { maxEndpoints: MAX } } });
  });
  afterAll(async () => {
    await host.close();
  });

  it('refuses one more with 409 conflict, creating nothing; a delete makes room again', async () => {
    const { accountId, client } = await freshKey();
    const created: string[] = [];
    for (let i = 0; i < MAX; i++) {
      const res = await create(client);
      expect(res.status).toBe(201);
      created.push(res.body.id as string);
    }
    const refused = await create(client);
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 409,
      body: errorEnvelope('invalid_request_error', 'conflict'),
    });
    expect(refused.body.error).toMatchObject({ message: expect.stringContaining(`maximum of ${MAX}`) });
    expect(await count(accountId, false)).toBe(MAX);

    expect((await client.delete(`${PATH}/${created[0]}`)).status).toBe(200);
    expect((await create(client)).status).toBe(201);
    expect(await count(accountId, false)).toBe(MAX);
  });

  it('counts disabled endpoints, and each mode and account on its own', async () => {
    const { accountId, client } = await freshKey();
    for (let i = 0; i < MAX; i++) expect((await create(client)).status).toBe(201);
    const [first] = (await client.get(PATH, { limit: 1 })).body.data as { id: string }[];
    expect((await client.patch(`${PATH}/${first.id}`, { disabled: true })).status).toBe(200);
    expect((await create(client)).status).toBe(409);

    const live = apiClient(host, await host.createKey(accountId, 'live'));
    expect((await create(live)).status).toBe(201);
    const { client: other } = await freshKey();
    expect((await create(other)).status).toBe(201);
  });

  /** Twelve creations at once in a fresh account: exactly the cap is created, the rest are 409. */
  async function expectCapHeldUnderConcurrency(on: TestHost): Promise<void> {
    const accountId = `acct_cap_${++accounts}`;
    const client = apiClient(on, await on.createKey(accountId, 'test'));
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(client)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(MAX).fill(201), ...Array(12 - MAX).fill(409)]);
    expect(await count(accountId, false, on)).toBe(MAX);
  }

  it('holds under concurrent creations: exactly the cap is created, the rest are 409', async () => {
    await expectCapHeldUnderConcurrency(host);
  });

  (DB_KIND === 'postgres' ? it : it.skip)(
    'holds under concurrent creations on a PostgreSQL database whose default isolation is REPEATABLE READ',
    async () => {
      const repeatable = await createTestHost({
        module: { worker: false, webhooks: { maxEndpoints: MAX } },
        isolation: 'repeatable read',
      });
      try {
        const [setting] = await repeatable.app.get(DataSource).query('SHOW default_transaction_isolation');
        expect(setting.default_transaction_isolation).toBe('repeatable read');
        await expectCapHeldUnderConcurrency(repeatable);
      } finally {
        await repeatable.close();
      }
    },
  );
});
