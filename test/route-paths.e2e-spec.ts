import { Controller, Get, VersioningType } from '@nestjs/common';
import request from 'supertest';
import { ApiV1Controller, RequireScopes } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
import { errorEnvelope, expectResourceMissing } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/** A host controller written with Nest's usual leading slash (and a trailing one). */
@ApiV1Controller('/invitations/')
@RequireScopes('candidates:read')
class SlashedInvitationsController {
  @Get()
  list(): { object: string; data: never[] } {
    return { object: 'list', data: [] };
  }
}

/** A host controller of its own API version 1, under the host's URI versioning. */
@Controller('users')
class HostUsersController {
  @Get()
  list(): string[] {
    return ['host'];
  }
}

describe('@ApiV1Controller paths', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({ controllers: [SlashedInvitationsController] });
    key = await host.createKey('acct_paths', 'test');
  });
  afterAll(() => host.close());

  it("mounts '/invitations/' at /v1/invitations, not /v1//invitations", async () => {
    const res = await apiClient(host, key).get('/v1/invitations');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { object: 'list', data: [] },
    });
    expect((await request(host.app.getHttpServer()).get('/v1/invitations')).status).toBe(401);
  });
});

describe("under the host's URI versioning (app.enableVersioning, default version 1)", () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({
      controllers: [SlashedInvitationsController, HostUsersController],
      versioning: { type: VersioningType.URI, defaultVersion: '1' },
    });
    key = await host.createKey('acct_versioned', 'test');
  });
  afterAll(() => host.close());

  it('keeps every module route and @ApiV1Controller route at /v1, not /v1/v1', async () => {
    const client = apiClient(host, key);
    expect((await client.get('/v1/ping')).body).toEqual({ object: 'ping', livemode: false });
    expect((await client.get('/v1/webhook_endpoints')).status).toBe(200);
    expect((await client.get('/v1/events')).status).toBe(200);
    expect((await client.get('/v1/sessions')).status).toBe(200);
    expect((await client.get('/v1/invitations')).status).toBe(200);
    expectResourceMissing(await client.get('/v1/v1/ping'));
  });

  it('still answers without a key with 401, and leaves the host its own versioned routes', async () => {
    const refused = await request(host.app.getHttpServer()).get('/v1/ping');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 401,
      body: errorEnvelope('authentication_error', 'invalid_api_key'),
    });
    expect((await request(host.app.getHttpServer()).get('/v1/users').expect(200)).body).toEqual(['host']);
  });
});
