import { Get } from '@nestjs/common';
import request from 'supertest';
import { ApiV1Controller, RequireScopes } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
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
