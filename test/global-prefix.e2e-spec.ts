import request from 'supertest';
import { apiClient } from './support/api-client.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/** DECISIONS.md, Errors: every /v1 error in the envelope, under a host's global prefix too. */
describe('under a global prefix (app.setGlobalPrefix)', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({ globalPrefix: 'api' });
    key = await host.createKey('acct_prefixed', 'test');
  });
  afterAll(async () => {
    await host.close();
  });

  it('serves the module under the prefix', async () => {
    expect((await apiClient(host, key).get('/api/v1/ping')).status).toBe(200);
  });

  it('answers an unknown route under the prefix in the envelope', async () => {
    const res = await apiClient(host, key).get('/api/v1/nope');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: errorEnvelope('invalid_request_error', 'resource_missing'),
    });
  });

  it('answers a malformed JSON body under the prefix in the envelope', async () => {
    const res = await request(host.app.getHttpServer())
      .post('/api/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/json')
      .send('{bad');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: errorEnvelope('invalid_request_error', 'parameter_invalid', 'body'),
    });
  });
});
