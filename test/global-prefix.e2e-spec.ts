import { RequestMethod } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { apiClient } from './support/api-client.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/** docs/decisions.md, Errors: every /v1 error in the envelope, under a host's global prefix too. */
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
    const res = await postMalformed(host, key, '/api/v1/webhook_endpoints');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: errorEnvelope('invalid_request_error', 'parameter_invalid', 'body'),
    });
  });
});

/** A malformed JSON body to the module's POST /v1/webhook_endpoints, at `path`. */
function postMalformed(host: TestHost, key: string, path: string): Promise<Response> {
  return request(host.app.getHttpServer())
    .post(path)
    .set('Authorization', `Bearer ${key}`)
    .set('Content-Type', 'application/json')
    .send('{bad');
}

/** Nest's own 404, as the host answers where nothing of the module lives. */
function hostNotFound(path: string): { status: number; body: unknown } {
  return { status: 404, body: { statusCode: 404, message: `Cannot GET ${path}`, error: 'Not Found' } };
}

/**
 * Nest maps a route outside the global prefix when the prefix's `exclude` matches its path and
 * method: the fallback answers where the module's routes are then mapped, and nowhere else.
 */
describe.each([
  ['a {path, method} wildcard', { path: 'v1/{*path}', method: RequestMethod.ALL }],
  ['a string wildcard', 'v1/*path'],
])('under a global prefix whose exclude (%s) keeps /v1 out of it', (_form, exclusion) => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({ configure: (app) => app.setGlobalPrefix('api', { exclude: [exclusion] }) });
    key = await host.createKey('acct_excluded', 'test');
  });
  afterAll(async () => {
    await host.close();
  });

  it('serves the module at /v1', async () => {
    expect((await apiClient(host, key).get('/v1/ping')).status).toBe(200);
  });

  it('answers an unknown /v1 route in the envelope', async () => {
    const res = await apiClient(host, key).get('/v1/nope');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: errorEnvelope('invalid_request_error', 'resource_missing'),
    });
  });

  it('answers a malformed JSON body at /v1 in the envelope', async () => {
    const res = await postMalformed(host, key, '/v1/webhook_endpoints');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: errorEnvelope('invalid_request_error', 'parameter_invalid', 'body'),
    });
  });

  it('leaves /api/v1, where nothing of the module lives, to the host', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/ping']) {
      const res = await apiClient(host, key).get(path);
      expect({ status: res.status, body: res.body }).toEqual(hostNotFound(path));
    }
  });
});

describe('under a global prefix whose exclude keeps only the GET routes of /v1 out of it', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({
      configure: (app) =>
        app.setGlobalPrefix('api', { exclude: [{ path: 'v1/{*path}', method: RequestMethod.GET }] }),
    });
    key = await host.createKey('acct_get_excluded', 'test');
  });
  afterAll(async () => {
    await host.close();
  });

  it('answers an unknown GET at /v1 and leaves /api/v1 to the host', async () => {
    const res = await apiClient(host, key).get('/v1/nope');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: errorEnvelope('invalid_request_error', 'resource_missing'),
    });
    const prefixed = await apiClient(host, key).get('/api/v1/nope');
    expect({ status: prefixed.status, body: prefixed.body }).toEqual(hostNotFound('/api/v1/nope'));
  });

  it('answers a malformed POST under the prefix, where the POST routes stay, and leaves /v1 to the host', async () => {
    const res = await postMalformed(host, key, '/api/v1/webhook_endpoints');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: errorEnvelope('invalid_request_error', 'parameter_invalid', 'body'),
    });
    const outside = await postMalformed(host, key, '/v1/webhook_endpoints');
    expect(outside.status).toBe(400);
    expect(outside.body).not.toHaveProperty('error.code');
  });
});
