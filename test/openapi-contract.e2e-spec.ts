import request, { type Response } from 'supertest';
import { createInterviewApiDocument, EventPublisher } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { documentedRoutes } from './support/openapi.js';
import { ResponseChecker } from './support/openapi-responses.js';
import { Receiver } from './support/receiver.js';
import { insertSessions } from './support/sessions.js';

/**
 * Every documented operation, called on a running host: a success and at least one error each,
 * each answer checked against the document's schema for its status.
 */
describe('the OpenAPI document against live answers', () => {
  let host: TestHost;
  let checker: ResponseChecker;
  let documented: string[];
  const exercised = new Set<string>();

  beforeAll(async () => {
    host = await createTestHost();
    const document = createInterviewApiDocument(host.app);
    checker = new ResponseChecker(document);
    documented = documentedRoutes(document);
  });
  afterAll(async () => {
    await host.close();
  });

  /** Checks `res` against the document as the answer of `route`, expecting `status`. */
  function expectDocumented(route: string, res: Response, status: number): void {
    exercised.add(route);
    expect({ route, status: res.status }).toEqual({ route, status });
    expect(checker.problem(route, res)).toBeNull();
  }

  it('answers every operation as documented, successes and errors alike', async () => {
    const key = await host.createKey('acct_contract', 'test');
    const readOnly = await host.createKey('acct_contract', 'test', ['results:read']);
    const client = apiClient(host, key);
    const server = host.app.getHttpServer();
    const [session] = await insertSessions(host, [
      { accountId: 'acct_contract', livemode: false, createdAt: new Date(), status: 'completed' },
    ]);

    expectDocumented('GET /v1/ping', await client.get('/v1/ping'), 200);
    expectDocumented('GET /v1/ping', await request(server).get('/v1/ping'), 401);
    expectDocumented('GET /v1/me', await client.get('/v1/me'), 200);
    expectDocumented('GET /v1/me', await client.get('/v1/me', { expand: 'all' }), 400);

    const endpointBody = { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'], description: 'contract' };
    const created = await client.post('/v1/webhook_endpoints', endpointBody);
    expectDocumented('POST /v1/webhook_endpoints', created, 201);
    const id: string = created.body.id;
    expectDocumented('POST /v1/webhook_endpoints', await client.post('/v1/webhook_endpoints', {}), 400);
    expectDocumented(
      'POST /v1/webhook_endpoints',
      await request(server)
        .post('/v1/webhook_endpoints')
        .set('Authorization', `Bearer ${key}`)
        .type('form')
        .send('url=https://example.com'),
      415,
    );
    expectDocumented('GET /v1/webhook_endpoints', await client.get('/v1/webhook_endpoints'), 200);
    expectDocumented(
      'GET /v1/webhook_endpoints',
      await client.get('/v1/webhook_endpoints', { limit: 0 }),
      400,
    );
    expectDocumented('GET /v1/webhook_endpoints/{id}', await client.get(`/v1/webhook_endpoints/${id}`), 200);
    expectDocumented(
      'GET /v1/webhook_endpoints/{id}',
      await client.get('/v1/webhook_endpoints/whk_nope'),
      404,
    );
    expectDocumented(
      'PATCH /v1/webhook_endpoints/{id}',
      await client.patch(`/v1/webhook_endpoints/${id}`, { description: null }),
      200,
    );
    expectDocumented(
      'PATCH /v1/webhook_endpoints/{id}',
      await client.patch(`/v1/webhook_endpoints/${id}`, { url: 5 }),
      400,
    );
    expectDocumented(
      'POST /v1/webhook_endpoints/{id}/rotate_secret',
      await client.post(`/v1/webhook_endpoints/${id}/rotate_secret`),
      200,
    );
    expectDocumented(
      'POST /v1/webhook_endpoints/{id}/rotate_secret',
      await apiClient(host, readOnly).post(`/v1/webhook_endpoints/${id}/rotate_secret`),
      403,
    );

    const tested = await client.post(`/v1/webhook_endpoints/${id}/test`);
    expectDocumented('POST /v1/webhook_endpoints/{id}/test', tested, 201);
    const deliveryId: string = tested.body.id;
    const deliveries = `/v1/webhook_endpoints/${id}/deliveries`;
    expectDocumented('GET /v1/webhook_endpoints/{id}/deliveries', await client.get(deliveries), 200);
    expectDocumented(
      'GET /v1/webhook_endpoints/{id}/deliveries',
      await client.get(deliveries, { status: 'lost' }),
      400,
    );
    expectDocumented(
      'GET /v1/webhook_endpoints/{id}/deliveries/{delivery_id}',
      await client.get(`${deliveries}/${deliveryId}`),
      200,
    );
    expectDocumented(
      'GET /v1/webhook_endpoints/{id}/deliveries/{delivery_id}',
      await client.get(`${deliveries}/dlv_nope`),
      404,
    );
    expectDocumented(
      'POST /v1/webhook_endpoints/{id}/deliveries/{delivery_id}/replay',
      await client.post(`${deliveries}/${deliveryId}/replay`),
      201,
    );
    expectDocumented(
      'POST /v1/webhook_endpoints/{id}/deliveries/{delivery_id}/replay',
      await client.post(`${deliveries}/dlv_nope/replay`),
      404,
    );

    const events = await client.get('/v1/events');
    expectDocumented('GET /v1/events', events, 200);
    expect(events.body.data.length).toBeGreaterThan(0);
    expectDocumented('GET /v1/events', await client.get('/v1/events', { type: 'nothing.*' }), 400);
    expectDocumented('GET /v1/events/{id}', await client.get(`/v1/events/${events.body.data[0].id}`), 200);
    expectDocumented('GET /v1/events/{id}', await client.get('/v1/events/evt_nope'), 404);

    expectDocumented('GET /v1/sessions', await client.get('/v1/sessions'), 200);
    expectDocumented('GET /v1/sessions', await client.get('/v1/sessions', { created_gte: 'yesterday' }), 400);
    expectDocumented('GET /v1/sessions/{id}', await client.get(`/v1/sessions/${session.id}`), 200);
    expectDocumented(
      'GET /v1/sessions/{id}',
      await apiClient(host, readOnly).get('/v1/sessions/ses_nope'),
      404,
    );

    // Disabled, the endpoint refuses a test event; deleted, it is gone.
    await client.patch(`/v1/webhook_endpoints/${id}`, { disabled: true });
    expectDocumented(
      'POST /v1/webhook_endpoints/{id}/test',
      await client.post(`/v1/webhook_endpoints/${id}/test`),
      409,
    );
    expectDocumented(
      'DELETE /v1/webhook_endpoints/{id}',
      await client.delete(`/v1/webhook_endpoints/${id}`),
      200,
    );
    expectDocumented(
      'DELETE /v1/webhook_endpoints/{id}',
      await client.delete(`/v1/webhook_endpoints/${id}`),
      404,
    );

    expect([...exercised].sort()).toEqual([...documented].sort());
  });

  it('sends webhooks as its webhooks section describes them, headers and bodies', async () => {
    const receiver = await Receiver.start();
    try {
      const key = await host.createKey('acct_contract_hooks', 'test');
      const client = apiClient(host, key);
      const endpoint = await client.post('/v1/webhook_endpoints', {
        url: receiver.url,
        enabled_events: ['*'],
      });
      expect(endpoint.status).toBe(201);
      expect((await client.post(`/v1/webhook_endpoints/${endpoint.body.id}/test`)).status).toBe(201);
      const publisher = host.app.get(EventPublisher);
      for (const type of ['result.ready', 'session.completed']) {
        await publisher.publish({
          accountId: 'acct_contract_hooks',
          livemode: false,
          type,
          data: { id: 'res_1', object: 'result', status: 'ready' },
        });
      }
      const received = await receiver.waitFor(3);
      const types = received.map((request) => (JSON.parse(request.body) as { type: string }).type);
      expect(types.sort()).toEqual(['result.ready', 'session.completed', 'webhook.test']);
      expect(received.map((request) => checker.webhookProblem(request))).toEqual([null, null, null]);
    } finally {
      await receiver.close();
    }
  });

  it('finds a body its schema does not describe', async () => {
    const key = await host.createKey('acct_contract_check', 'test');
    const res = await apiClient(host, key).get('/v1/ping');
    res.body = { object: 'ping', livemode: 'no' };
    expect(checker.problem('GET /v1/ping', res)).toContain('must be boolean');
    const webhook = {
      method: 'POST',
      path: '/hook',
      headers: { 'webhook-id': 'evt_1', 'webhook-timestamp': 'now', 'webhook-signature': 'v1,x' },
      body: JSON.stringify({ type: 'webhook.test' }),
      receivedAt: Date.now(),
    };
    expect(checker.webhookProblem(webhook)).toBe("webhook.test's webhook-timestamp header is now");
    res.status = 418;
    expect(checker.problem('GET /v1/ping', res)).toBe(
      'GET /v1/ping answered 418, which it does not document',
    );
  });
});
