import type { Response } from 'supertest';
import {
  type AccountScope,
  ApiError,
  type DeliveryView,
  type WebhookEndpointView,
  WebhookEndpointsService,
} from '../lib/index.js';
import { type ApiClient, apiClient } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, OpenReceivers } from './support/receiver.js';
import { verifiesWith } from './support/webhooks.js';

const PATH = '/v1/webhook_endpoints';
const MAX_ENDPOINTS = 3;

/** What the route answered, as the comparisons read it. */
interface Answer {
  status: number;
  body: unknown;
}

function answerOf(res: Response): Answer {
  return { status: res.status, body: res.body };
}

/** The ApiError a service call threw, as the route would answer it; fails if the call succeeded. */
async function refusalOf(call: Promise<unknown>): Promise<Answer> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return { status: error.getStatus(), body: error.getResponse() };
    throw error;
  }
  throw new Error('the call was not refused');
}

/** An endpoint's view without what changes from one creation to another. */
function withoutIdentity(view: Record<string, unknown>): Record<string, unknown> {
  const { id, secret, created_at, updated_at, ...rest } = view;
  return {
    ...rest,
    id: typeof id,
    secret: typeof secret,
    created_at: typeof created_at,
    updated_at: typeof updated_at,
  };
}

function withoutSecret(view: WebhookEndpointView): Omit<WebhookEndpointView, 'secret'> {
  const { secret: _secret, ...rest } = view;
  return rest;
}

const receivers = new OpenReceivers();
afterEach(() => receivers.closeAll());

describe('WebhookEndpointsService: endpoint management in the host process, as the routes manage it', () => {
  let host: TestHost;
  let service: WebhookEndpointsService;
  let accounts = 0;

  beforeAll(async () => {
    host = await createTestHost({ module: { webhooks: { maxEndpoints: MAX_ENDPOINTS } } });
    service = host.app.get(WebhookEndpointsService);
  });
  afterAll(async () => {
    await host.close();
  });

  /** A fresh account in test mode: its scope, and a client with a key of it. */
  async function newAccount(): Promise<{ scope: AccountScope; client: ApiClient }> {
    const accountId = `acct_svc_${++accounts}`;
    return {
      scope: { accountId, livemode: false },
      client: apiClient(host, await host.createKey(accountId, 'test')),
    };
  }

  it('exposes exactly the routes of the endpoints and their deliveries', () => {
    expect(Object.getOwnPropertyNames(WebhookEndpointsService.prototype).sort()).toEqual(
      [
        'constructor',
        'create',
        'list',
        'retrieve',
        'update',
        'remove',
        'rotateSecret',
        'sendTest',
        'listDeliveries',
        'retrieveDelivery',
        'replay',
      ].sort(),
    );
  });

  it('create answers as POST does, secret included, and GET then answers the same endpoint', async () => {
    const { scope, client } = await newAccount();
    const input = { url: 'https://example.com/hook', enabled_events: ['*'], description: 'dashboard' };
    const created = await service.create(scope, input);
    const posted = await client.post(PATH, input);
    expect(posted.status).toBe(201);
    expect(withoutIdentity({ ...created })).toEqual(withoutIdentity(posted.body));
    expect(created.secret).toMatch(/^whsec_/);

    const fetched = await client.get(`${PATH}/${created.id}`);
    expect(answerOf(fetched)).toEqual({ status: 200, body: withoutSecret(created) });
    // And the other way round: the route's endpoint, as the service reads it.
    expect(await service.retrieve(scope, posted.body.id)).toEqual(
      (await client.get(`${PATH}/${posted.body.id}`)).body,
    );
  });

  it('list answers as GET does, with strings or typed values, and its cursors serve either', async () => {
    const { scope, client } = await newAccount();
    for (let i = 0; i < 3; i++) {
      await service.create(scope, { url: `https://example.com/${i}`, enabled_events: ['*'] });
    }
    const routePage = (await client.get(PATH, { limit: 2 })).body;
    const servicePage = await service.list(scope, { limit: 2 });
    expect({ ...servicePage, next_cursor: null }).toEqual({ ...routePage, next_cursor: null });
    expect(servicePage.has_more).toBe(true);
    // A cursor from either one pages the other on.
    const rest = (await client.get(PATH, { limit: 2, cursor: servicePage.next_cursor! })).body;
    expect(await service.list(scope, { limit: '2', cursor: routePage.next_cursor })).toEqual(rest);
    expect(rest.data).toHaveLength(1);

    const oldest = rest.data[0] as WebhookEndpointView;
    const since = { limit: '10', created_gte: oldest.created_at };
    const sinceTyped = { limit: 10, created_gte: new Date(oldest.created_at) };
    const expected = (await client.get(PATH, since)).body;
    expect(expected.data).toHaveLength(3);
    expect(await service.list(scope, since)).toEqual(expected);
    expect(await service.list(scope, sinceTyped)).toEqual(expected);
    expect(await service.list(scope)).toEqual((await client.get(PATH)).body);
  });

  it('update, rotateSecret and remove answer as PATCH, rotate_secret and DELETE do', async () => {
    const { scope, client } = await newAccount();
    const mine = await service.create(scope, {
      url: 'https://example.com/a',
      enabled_events: ['*'],
      description: 'a',
    });
    const theirs = (
      await client.post(PATH, { url: 'https://example.com/a', enabled_events: ['*'], description: 'a' })
    ).body as WebhookEndpointView;

    const patch = { url: 'https://example.com/b', description: null, disabled: true };
    const updated = await service.update(scope, mine.id, patch);
    const patched = await client.patch(`${PATH}/${theirs.id}`, patch);
    expect(patched.status).toBe(200);
    expect(withoutIdentity({ ...updated })).toEqual(withoutIdentity(patched.body));
    expect(updated).toMatchObject({ url: 'https://example.com/b', description: null, status: 'disabled' });
    expect((await client.get(`${PATH}/${mine.id}`)).body).toEqual(updated);

    const rotated = await service.rotateSecret(scope, mine.id);
    const routeRotated = await client.post(`${PATH}/${theirs.id}/rotate_secret`);
    expect(routeRotated.status).toBe(200);
    expect(withoutIdentity({ ...rotated })).toEqual(withoutIdentity(routeRotated.body));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(mine.secret);
    expect((await client.get(`${PATH}/${mine.id}`)).body).toEqual(withoutSecret(rotated));

    expect(await service.remove(scope, mine.id)).toEqual({
      id: mine.id,
      object: 'webhook_endpoint',
      deleted: true,
    });
    expect((await client.delete(`${PATH}/${theirs.id}`)).body).toEqual({
      id: theirs.id,
      object: 'webhook_endpoint',
      deleted: true,
    });
    expect((await client.get(`${PATH}/${mine.id}`)).status).toBe(404);
  });

  it('sendTest sends a signed webhook.test the receiver verifies; the deliveries read and replay as the routes do', async () => {
    const { scope, client } = await newAccount();
    const receiver = await receivers.start();
    const endpoint = await service.create(scope, {
      url: receiver.url,
      enabled_events: ['session.completed'],
    });

    const sent = await service.sendTest(scope, endpoint.id);
    expect(sent).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: endpoint.id,
      event_type: 'webhook.test',
    });
    const [received] = await receiver.waitFor(1);
    expect(verifiesWith(received, endpoint.secret!)).toEqual({ standard: true, ours: true });
    expect(JSON.parse(received.body)).toMatchObject({ id: sent.event_id, type: 'webhook.test' });

    const finished = await eventually(async () => {
      const delivery = await service.retrieveDelivery(scope, endpoint.id, sent.id);
      return delivery.status === 'succeeded' ? delivery : undefined;
    });
    expect(finished.attempts).toHaveLength(1);
    const deliveryPath = `${PATH}/${endpoint.id}/deliveries`;
    expect((await client.get(`${deliveryPath}/${sent.id}`)).body).toEqual(finished);
    expect(
      await service.listDeliveries(scope, endpoint.id, { status: 'succeeded', event_id: sent.event_id }),
    ).toEqual((await client.get(deliveryPath, { status: 'succeeded', event_id: sent.event_id })).body);

    const replayed = await service.replay(scope, endpoint.id, sent.id);
    expect(replayed).toMatchObject({ event_id: sent.event_id, replay_of: sent.id, status: 'pending' });
    const [, again] = await receiver.waitFor(2);
    expect(again.headers['webhook-id']).toBe(received.headers['webhook-id']);
    expect(verifiesWith(again, endpoint.secret!)).toEqual({ standard: true, ours: true });
    const routeReplay = await client.post(`${deliveryPath}/${sent.id}/replay`);
    expect(routeReplay.status).toBe(201);
    expect({
      ...routeReplay.body,
      id: 'dlv',
      created_at: 't',
      updated_at: 't',
      next_attempt_at: 't',
    }).toEqual({
      ...replayed,
      id: 'dlv',
      created_at: 't',
      updated_at: 't',
      next_attempt_at: 't',
    });
    const all = await service.listDeliveries(scope, endpoint.id, { limit: 10 });
    expect(all.data.map((delivery: DeliveryView) => delivery.id)).toEqual(
      (await client.get(deliveryPath, { limit: 10 })).body.data.map((delivery: DeliveryView) => delivery.id),
    );
    expect(all.data).toHaveLength(3);
  });

  it('refuses invalid input with the ApiError the route answers, and changes nothing', async () => {
    const { scope, client } = await newAccount();
    const endpoint = await service.create(scope, { url: 'https://example.com/x', enabled_events: ['*'] });
    const id = endpoint.id;
    const loose = service as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;

    const cases: { call: () => Promise<unknown>; route: () => Promise<Response> }[] = [
      // create: the DTO's rules, the URL and event type rules, unknown fields, text the databases refuse.
      {
        call: () => loose.create(scope, { enabled_events: ['*'] }),
        route: () => client.post(PATH, { enabled_events: ['*'] }),
      },
      {
        call: () => loose.create(scope, { url: 5, enabled_events: ['*'] }),
        route: () => client.post(PATH, { url: 5, enabled_events: ['*'] }),
      },
      {
        call: () => service.create(scope, { url: 'https://a.example', enabled_events: [] }),
        route: () => client.post(PATH, { url: 'https://a.example', enabled_events: [] }),
      },
      {
        call: () => service.create(scope, { url: 'https://a.example', enabled_events: ['nope.event'] }),
        route: () => client.post(PATH, { url: 'https://a.example', enabled_events: ['nope.event'] }),
      },
      {
        call: () =>
          service.create(scope, { url: 'https://a.example', enabled_events: ['*', 'session.completed'] }),
        route: () =>
          client.post(PATH, { url: 'https://a.example', enabled_events: ['*', 'session.completed'] }),
      },
      {
        call: () => service.create(scope, { url: 'not a url', enabled_events: ['*'] }),
        route: () => client.post(PATH, { url: 'not a url', enabled_events: ['*'] }),
      },
      {
        call: () => loose.create(scope, { url: 'https://a.example', enabled_events: ['*'], secret: 'x' }),
        route: () => client.post(PATH, { url: 'https://a.example', enabled_events: ['*'], secret: 'x' }),
      },
      {
        call: () =>
          service.create(scope, { url: 'https://a.example', enabled_events: ['*'], description: 'a\u0000b' }),
        route: () =>
          client.post(PATH, { url: 'https://a.example', enabled_events: ['*'], description: 'a\u0000b' }),
      },
      { call: () => loose.create(scope, []), route: () => client.post(PATH, []) },
      // list: the shared list parameters, as strings or typed.
      { call: () => service.list(scope, { limit: 0 }), route: () => client.get(PATH, { limit: '0' }) },
      { call: () => service.list(scope, { limit: '101' }), route: () => client.get(PATH, { limit: '101' }) },
      { call: () => service.list(scope, { limit: 2.5 }), route: () => client.get(PATH, { limit: '2.5' }) },
      {
        call: () => service.list(scope, { created_gte: 'yesterday' }),
        route: () => client.get(PATH, { created_gte: 'yesterday' }),
      },
      {
        call: () => service.list(scope, { created_lt: new Date(Number.NaN) }),
        route: () => client.get(PATH, { created_lt: '' }),
      },
      { call: () => service.list(scope, { cursor: '' }), route: () => client.get(PATH, { cursor: '' }) },
      {
        call: () => service.list(scope, { cursor: 'forged' }),
        route: () => client.get(PATH, { cursor: 'forged' }),
      },
      {
        call: () => loose.list(scope, { status: 'enabled' }),
        route: () => client.get(PATH, { status: 'enabled' }),
      },
      // ids: unknown, or not one any endpoint or delivery can have.
      { call: () => service.retrieve(scope, 'whk_unknown'), route: () => client.get(`${PATH}/whk_unknown`) },
      { call: () => service.retrieve(scope, 'whk_\u0000'), route: () => client.get(`${PATH}/whk_%00`) },
      {
        call: () => service.retrieveDelivery(scope, id, 'dlv_unknown'),
        route: () => client.get(`${PATH}/${id}/deliveries/dlv_unknown`),
      },
      {
        call: () => service.replay(scope, id, 'dlv_unknown'),
        route: () => client.post(`${PATH}/${id}/deliveries/dlv_unknown/replay`),
      },
      // update: a sent field is validated even when null.
      {
        call: () => loose.update(scope, id, { disabled: null }),
        route: () => client.patch(`${PATH}/${id}`, { disabled: null }),
      },
      {
        call: () => loose.update(scope, id, { url: 5 }),
        route: () => client.patch(`${PATH}/${id}`, { url: 5 }),
      },
      {
        call: () => loose.update(scope, id, { status: 'disabled' }),
        route: () => client.patch(`${PATH}/${id}`, { status: 'disabled' }),
      },
      {
        call: () => service.update(scope, id, { enabled_events: ['nope.event'] }),
        route: () => client.patch(`${PATH}/${id}`, { enabled_events: ['nope.event'] }),
      },
      // the deliveries list's own filters.
      {
        call: () => loose.listDeliveries(scope, id, { status: 'bogus' }),
        route: () => client.get(`${PATH}/${id}/deliveries`, { status: 'bogus' }),
      },
      {
        call: () => service.listDeliveries(scope, id, { event_id: '' }),
        route: () => client.get(`${PATH}/${id}/deliveries`, { event_id: '' }),
      },
      {
        call: () => loose.listDeliveries(scope, id, { type: 'x' }),
        route: () => client.get(`${PATH}/${id}/deliveries`, { type: 'x' }),
      },
    ];
    for (const [index, { call, route }] of cases.entries()) {
      const expected = answerOf(await route());
      expect(expected.status).toBeGreaterThanOrEqual(400);
      expect({ index, ...(await refusalOf(call())) }).toEqual({ index, ...expected });
    }
    // Nothing was created or changed by any of them.
    expect((await service.list(scope)).data).toEqual([withoutSecret(endpoint)]);
  });

  it('keeps the endpoint cap and refuses a test on a disabled endpoint, as the routes do', async () => {
    const { scope, client } = await newAccount();
    const input = { url: 'https://example.com/cap', enabled_events: ['*'] };
    for (let i = 0; i < MAX_ENDPOINTS; i++) await service.create(scope, input);
    const overCap = answerOf(await client.post(PATH, input));
    expect(overCap.status).toBe(409);
    expect(await refusalOf(service.create(scope, input))).toEqual(overCap);
    expect((await service.list(scope)).data).toHaveLength(MAX_ENDPOINTS);

    const [disabled] = (await service.list(scope, { limit: 1 })).data;
    await service.update(scope, disabled.id, { disabled: true });
    const routeTest = answerOf(await client.post(`${PATH}/${disabled.id}/test`));
    expect(routeTest.status).toBe(409);
    expect(await refusalOf(service.sendTest(scope, disabled.id))).toEqual(routeTest);
  });

  it("answers another account's or mode's endpoint as missing, as the route does, and changes nothing", async () => {
    const owner = await newAccount();
    const receiver = await receivers.start();
    const endpoint = await service.create(owner.scope, { url: receiver.url, enabled_events: ['*'] });
    const delivery = await service.sendTest(owner.scope, endpoint.id);
    await receiver.waitFor(1);

    const other = await newAccount();
    const ownerLive = { accountId: owner.scope.accountId, livemode: true };
    const ownerLiveClient = apiClient(host, await host.createKey(owner.scope.accountId, 'live'));
    const id = endpoint.id;
    for (const [scope, client] of [
      [other.scope, other.client],
      [ownerLive, ownerLiveClient],
    ] as const) {
      const cases: [() => Promise<unknown>, () => Promise<Response>][] = [
        [() => service.retrieve(scope, id), () => client.get(`${PATH}/${id}`)],
        [
          () => service.update(scope, id, { disabled: true }),
          () => client.patch(`${PATH}/${id}`, { disabled: true }),
        ],
        [() => service.rotateSecret(scope, id), () => client.post(`${PATH}/${id}/rotate_secret`)],
        [() => service.sendTest(scope, id), () => client.post(`${PATH}/${id}/test`)],
        [() => service.listDeliveries(scope, id), () => client.get(`${PATH}/${id}/deliveries`)],
        [
          () => service.retrieveDelivery(scope, id, delivery.id),
          () => client.get(`${PATH}/${id}/deliveries/${delivery.id}`),
        ],
        [
          () => service.replay(scope, id, delivery.id),
          () => client.post(`${PATH}/${id}/deliveries/${delivery.id}/replay`),
        ],
        [() => service.remove(scope, id), () => client.delete(`${PATH}/${id}`)],
      ];
      for (const [call, route] of cases) {
        const expected = answerOf(await route());
        expect(expected).toMatchObject({
          status: 404,
          body: { error: { code: 'resource_missing', param: 'id' } },
        });
        expect(await refusalOf(call())).toEqual(expected);
      }
      expect((await service.list(scope)).data).toEqual([]);
    }
    // The owner's endpoint is as it was, secret included, with its one delivery.
    expect(await service.retrieve(owner.scope, id)).toEqual(withoutSecret(endpoint));
    expect((await service.listDeliveries(owner.scope, id)).data.map((d) => d.id)).toEqual([delivery.id]);
    await receiver.waitFor(1);
    expect(receiver.requests).toHaveLength(1);
    expect(verifiesWith(receiver.requests[0], endpoint.secret!)).toEqual({ standard: true, ours: true });
  });

  it('refuses a scope without an account id or a boolean mode before reading anything', async () => {
    const { scope } = await newAccount();
    const endpoint = await service.create(scope, { url: 'https://example.com/s', enabled_events: ['*'] });
    const loose = service as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const invalid = (param: string): Answer => ({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          message: expect.any(String),
          param,
        },
      },
    });
    expect(await refusalOf(loose.retrieve({ livemode: false }, endpoint.id))).toEqual(invalid('accountId'));
    expect(await refusalOf(loose.retrieve({ accountId: '', livemode: false }, endpoint.id))).toEqual(
      invalid('accountId'),
    );
    expect(await refusalOf(loose.list({ accountId: scope.accountId }))).toEqual(invalid('livemode'));
    expect(
      await refusalOf(loose.remove({ accountId: scope.accountId, livemode: 'false' }, endpoint.id)),
    ).toEqual(invalid('livemode'));
    expect(await refusalOf(loose.retrieve(undefined, endpoint.id))).toEqual(invalid('accountId'));
    expect(await service.retrieve(scope, endpoint.id)).toEqual(withoutSecret(endpoint));
  });
});
