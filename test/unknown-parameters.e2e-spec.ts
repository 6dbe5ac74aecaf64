import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { WebhookEndpointEntity } from '../lib/index.js';
import { type ApiClient, apiClient } from './support/api-client.js';
import { expectParameterInvalid } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import {
  createEndpoint,
  type EndpointWithSecret,
  listAllDeliveries,
  TEST_WEBHOOKS,
} from './support/webhooks.js';

/** docs/decisions.md, Errors: unknown parameters are refused on every route, not only those with a DTO. */
describe('unknown parameters on routes that take no body or no query', () => {
  let host: TestHost;
  let client: ApiClient;
  let endpoint: EndpointWithSecret;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({ module: { webhooks: TEST_WEBHOOKS } });
    key = await host.createKey('acct_unknown', 'test');
    client = apiClient(host, key);
    // Never sent to: nothing here publishes an event.
    endpoint = await createEndpoint(client, 'http://127.0.0.1:9/hook');
  });
  afterAll(async () => {
    await host.close();
  });

  const stored = async (): Promise<{ status: string; description: string | null; secret?: string }> =>
    (await client.get(`/v1/webhook_endpoints/${endpoint.id}`)).body as {
      status: string;
      description: string | null;
    };

  it('refuses a body on rotate_secret, and keeps the secret', async () => {
    const res = await client.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { foo: 1 });
    expectParameterInvalid(res, 'foo');
    const row = await host.app
      .get(DataSource)
      .getRepository(WebhookEndpointEntity)
      .findOneBy({ id: endpoint.id });
    expect(row?.secret).toBe(endpoint.secret);
  });

  // A POST or PATCH body of another type answers 415 (json-bodies.e2e-spec.ts); a DELETE takes none.
  it.each(['text/plain;charset=UTF-8', 'application/vnd.api+json'])(
    'refuses a JSON body no parser reads (%s) on DELETE, and deletes nothing',
    async (contentType) => {
      const res = await request(host.app.getHttpServer())
        .delete(`/v1/webhook_endpoints/${endpoint.id}`)
        .set('Authorization', `Bearer ${key}`)
        .set('Content-Type', contentType)
        .send(JSON.stringify({ really: 'no' }));
      expectParameterInvalid(res, 'body');
      expect(res.body.error.message).toContain('application/json');
      expect(await stored()).toMatchObject({ status: 'enabled', description: null });
    },
  );

  describe('a chunked body, which announces no length', () => {
    let port: number;

    beforeAll(async () => {
      await host.app.listen(0, '127.0.0.1');
      port = (host.app.getHttpServer().address() as AddressInfo).port;
    });

    /** Sends `chunks` with Transfer-Encoding: chunked and no Content-Type, as streaming clients do. */
    function postChunked(path: string, chunks: string[]): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path,
            headers: { Authorization: `Bearer ${key}`, 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    }

    it('is no body when it holds nothing: rotate_secret answers 200', async () => {
      const res = await postChunked(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, []);
      expect(res.status).toBe(200);
      endpoint.secret = (JSON.parse(res.body) as { secret: string }).secret;
    });

    it('is refused when it holds something no parser read, and the secret is kept', async () => {
      const res = await postChunked(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, ['{"foo":', '1}']);
      expect(res.status).toBe(415);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'unsupported_media_type' } });
      const row = await host.app
        .get(DataSource)
        .getRepository(WebhookEndpointEntity)
        .findOneBy({ id: endpoint.id });
      expect(row?.secret).toBe(endpoint.secret);
    });
  });

  it('refuses a body on DELETE, and deletes nothing', async () => {
    const res = await request(host.app.getHttpServer())
      .delete(`/v1/webhook_endpoints/${endpoint.id}`)
      .set('Authorization', `Bearer ${key}`)
      .send({ really: 'no' });
    expectParameterInvalid(res, 'really');
    expect((await stored()).status).toBe('enabled');
  });

  it('refuses a body on test, and sends nothing', async () => {
    expectParameterInvalid(
      await client.post(`/v1/webhook_endpoints/${endpoint.id}/test`, { type: 'x' }),
      'type',
    );
    expect(await listAllDeliveries(client, endpoint.id)).toHaveLength(0);
  });

  it('refuses a JSON array as the body of a route that takes none', async () => {
    expectParameterInvalid(
      await client.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, [1]),
      'body',
    );
  });

  it('refuses a query parameter on retrieve and on ping', async () => {
    expectParameterInvalid(await client.get(`/v1/webhook_endpoints/${endpoint.id}?expand=secret`), 'expand');
    expectParameterInvalid(await client.get('/v1/ping?foo=1'), 'foo');
  });

  it('still accepts an empty JSON body and no query', async () => {
    expect((await client.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, {})).status).toBe(200);
    expect((await client.get('/v1/ping')).status).toBe(200);
    expect((await client.get('/v1/webhook_endpoints?limit=1')).status).toBe(200);
  });
});
