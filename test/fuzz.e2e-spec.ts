import fc from 'fast-check';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { WebhookEndpointEntity } from '../lib/index.js';
import { type ApiClient, apiClient } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { insertSessions } from './support/sessions.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

/** A request the fuzzer makes: a route of the module with generated ids, query and body. */
interface FuzzRequest {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  query: Record<string, string>;
  body: unknown;
}

const ACCOUNT = 'acct_fuzz';
type Route = readonly [FuzzRequest['method'], string];
const WRITES: readonly Route[] = [
  ['post', '/v1/webhook_endpoints'],
  ['patch', '/v1/webhook_endpoints/:endpoint'],
  ['post', '/v1/webhook_endpoints/:endpoint/rotate_secret'],
  ['post', '/v1/webhook_endpoints/:endpoint/test'],
  ['post', '/v1/webhook_endpoints/:endpoint/deliveries/:delivery/replay'],
];
const READS: readonly Route[] = [
  ['get', '/v1/ping'],
  ['get', '/v1/me'],
  ['get', '/v1/webhook_endpoints'],
  ['get', '/v1/webhook_endpoints/:endpoint'],
  ['get', '/v1/webhook_endpoints/:endpoint/deliveries'],
  ['get', '/v1/webhook_endpoints/:endpoint/deliveries/:delivery'],
  ['get', '/v1/events'],
  ['get', '/v1/events/:event'],
  ['get', '/v1/sessions'],
  ['get', '/v1/sessions/:session'],
];
/** Statuses a module route may answer; a 500 or anything else is a defect. */
const EXPECTED = new Set([200, 201, 400, 404, 409]);
const LIST_PARAMETERS = [
  'limit',
  'cursor',
  'created_gte',
  'created_lt',
  'type',
  'status',
  'event_id',
  'expand',
];

const withNul = fc
  .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
  .map(([a, b]) => `${a}\u0000${b}`);

/** Values a client might send, well-meaning or not. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  // PostgreSQL refuses NUL in any text: each place a string goes gets one often.
  withNul,
  withNul,
  fc.constantFrom(
    '',
    '0',
    '-1',
    '101',
    '1e3',
    'null',
    'true',
    '[]',
    '{}',
    '%00',
    '\u0000',
    '../..',
    "' OR 1=1 --",
    '2026-02-30T00:00:00Z',
    '9999-12-31T23:59:59-14:00',
    'http://127.0.0.1:9/hook',
    'https://example.com/hook',
    'result.ready',
    '*',
    'pending',
    'x'.repeat(3000),
  ),
);
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileText, { maxLength: 4 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);

/** Endpoint fields a route accepts. */
const validEndpoint = fc.record(
  {
    url: fc.constantFrom('http://127.0.0.1:9/hook', 'https://example.com/hook'),
    enabled_events: fc.constantFrom(['*'], ['result.ready'], ['result.ready', 'result.updated']),
    description: fc.constantFrom('Production', null),
  },
  { requiredKeys: ['url', 'enabled_events'] },
);
const ENDPOINT_FIELDS = ['url', 'enabled_events', 'description', 'disabled', 'secret'] as const;

/**
 * An endpoint's fields: mostly valid ones with one of them (or one more) hostile, so that the
 * hostile value reaches as far as valid input goes; sometimes anything at all.
 */
const endpointFields = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        validEndpoint,
        fc.constantFrom(...ENDPOINT_FIELDS),
        fc.oneof(hostileText, hostileText, jsonValue),
      )
      .map(([valid, field, hostile]) => ({ ...valid, [field]: hostile })),
  },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...ENDPOINT_FIELDS), jsonValue, { maxKeys: 4 }) },
);

describe('generated requests to every module route (no 500s, always the envelope, nothing changed by a refusal)', () => {
  let host: TestHost;
  let key: string;
  let client: ApiClient;
  let ids: { endpoint: string; delivery: string; event: string; session: string };

  beforeAll(async () => {
    // No worker: what a request leaves in the database is all that changes it.
    host = await createTestHost({ module: { rateLimit: false, worker: false } });
    key = await host.createKey(ACCOUNT, 'test');
    client = apiClient(host, key);
    const endpoint = await createEndpoint(client, 'http://127.0.0.1:9/hook', ['result.updated']);
    const [event] = await publishResults(host, ACCOUNT, 1, 'result.updated');
    const deliveries = await client.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries`);
    const [session] = await insertSessions(host, [
      { accountId: ACCOUNT, livemode: false, createdAt: new Date() },
    ]);
    ids = {
      endpoint: endpoint.id,
      delivery: (deliveries.body.data as { id: string }[])[0].id,
      event: event.id,
      session: session.id,
    };
  });
  afterAll(() => host.close());

  /** An id: a real one of the right kind, a real one of another kind, or anything at all. */
  const anyId = (real: () => string): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(null).map(() => real()) },
      { weight: 1, arbitrary: fc.constantFrom('whk_1', 'dlv_1', 'evt_1', 'ses_1') },
      { weight: 1, arbitrary: hostileText.filter((text) => text.length > 0) },
    );

  const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
    .record({
      // The routes that write come up more often: a refusal there must change nothing.
      route: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...WRITES) },
        { weight: 2, arbitrary: fc.constantFrom(...READS) },
      ),
      endpoint: anyId(() => ids.endpoint),
      delivery: anyId(() => ids.delivery),
      event: anyId(() => ids.event),
      session: anyId(() => ids.session),
      query: fc.dictionary(fc.oneof(fc.constantFrom(...LIST_PARAMETERS), hostileText), hostileText, {
        maxKeys: 3,
      }),
      withQuery: fc.boolean(),
      body: fc.oneof(
        { weight: 4, arbitrary: endpointFields },
        { weight: 1, arbitrary: fc.dictionary(hostileText, jsonValue, { maxKeys: 3 }) },
        { weight: 1, arbitrary: jsonValue },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
    })
    .map(({ route: [method, template], endpoint, delivery, event, session, query, withQuery, body }) => ({
      method,
      path: template
        .replace(':endpoint', encodeURIComponent(endpoint))
        .replace(':delivery', encodeURIComponent(delivery))
        .replace(':event', encodeURIComponent(event))
        .replace(':session', encodeURIComponent(session)),
      query: withQuery ? query : {},
      body: method === 'get' || method === 'delete' ? undefined : body,
    }));

  function send(req: FuzzRequest): Promise<Response> {
    const agent = request(host.app.getHttpServer());
    const call = agent[req.method](req.path).query(req.query).set('Authorization', `Bearer ${key}`);
    return req.body === undefined ? call : call.type('json').send(JSON.stringify(req.body));
  }

  const endpointsAsStored = (): Promise<WebhookEndpointEntity[]> =>
    host.app
      .get(DataSource)
      .getRepository(WebhookEndpointEntity)
      .find({ order: { id: 'ASC' } });

  it('answers every one with an expected status and, for a refusal, exactly the envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (req) => {
        const before = req.method === 'get' ? null : await endpointsAsStored();
        const res = await send(req);
        const where = `${req.method.toUpperCase()} ${req.path} ${JSON.stringify(req.query)} ${JSON.stringify(req.body) ?? ''}`;
        expect({ where, status: res.status, ok: EXPECTED.has(res.status) }).toEqual({
          where,
          status: res.status,
          ok: true,
        });
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        if (res.status >= 400) {
          expect(Object.keys(res.body)).toEqual(['error']);
          const { type, code, message, param, ...rest } = res.body.error as Record<string, unknown>;
          expect(rest).toEqual({});
          expect([typeof type, typeof code, typeof message]).toEqual(['string', 'string', 'string']);
          expect(param === undefined || typeof param === 'string').toBe(true);
          if (before !== null) expect(await endpointsAsStored()).toEqual(before);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1000) },
    );
  }, 120_000);
});
