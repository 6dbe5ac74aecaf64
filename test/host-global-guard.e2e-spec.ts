import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  UnauthorizedException,
  UseGuards,
  VersioningType,
} from '@nestjs/common';
import type { Request } from 'express';
import request from 'supertest';
import { ApiKeyGuard, ApiV1Controller, isApiKeyRoute } from '../lib/index.js';
import { apiClient, type ApiClient } from './support/api-client.js';
import { errorEnvelope, expectResourceMissing } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { insertSessions } from './support/sessions.js';

const HOST_TOKEN = 'host-login-token';
const ACCOUNT = 'acct_host_guard';

/**
 * The host's own authentication, bound globally and meant for its own routes only: the README's
 * way, letting through what the module's key guard checks instead.
 */
class HostLoginGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (isApiKeyRoute(context)) return true;
    const req = context.switchToHttp().getRequest<Request>();
    if (req.headers['x-host-token'] !== HOST_TOKEN) throw new UnauthorizedException('host login required');
    return true;
  }
}

/** The host's own API, version 1 by its URI versioning: /v1/users. */
@Controller('users')
class HostUsersController {
  @Get()
  list(): string[] {
    return ['host user'];
  }

  /** One handler of the host's own controller behind the key guard: /v1/users/by_key. */
  @Get('by_key')
  @UseGuards(ApiKeyGuard)
  byKey(): { by: string } {
    return { by: 'key' };
  }
}

/** A host controller behind the key guard as a whole, without @ApiV1Controller: /v1/reports. */
@Controller('reports')
@UseGuards(ApiKeyGuard)
class HostReportsController {
  @Get()
  list(): string[] {
    return ['report'];
  }
}

/** A host's own kind of key guard. */
@Injectable()
class AuditedApiKeyGuard extends ApiKeyGuard {}

/** A host controller behind its subclass of the key guard: /v1/audits. */
@Controller('audits')
@UseGuards(AuditedApiKeyGuard)
class HostAuditsController {
  @Get()
  list(): string[] {
    return ['audit'];
  }
}

/** A host route in the module's style: /v1/invitations. */
@ApiV1Controller('invitations')
class HostInvitationsController {
  @Get()
  list(): { object: string; data: never[] } {
    return { object: 'list', data: [] };
  }
}

/** The host guard's refusal, in Nest's default body: not the module's envelope. */
const HOST_REFUSAL = { statusCode: 401, message: 'host login required', error: 'Unauthorized' };

describe("a host-global guard that lets the module's routes through with isApiKeyRoute, under URI versioning", () => {
  let host: TestHost;
  let client: ApiClient;

  beforeAll(async () => {
    host = await createTestHost({
      controllers: [
        HostUsersController,
        HostReportsController,
        HostAuditsController,
        HostInvitationsController,
      ],
      versioning: { type: VersioningType.URI, defaultVersion: '1' },
      configure: (app) => app.useGlobalGuards(new HostLoginGuard()),
    });
    client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
  });
  afterAll(async () => {
    await host?.close();
  });

  it("serves the module's routes to an API key alone", async () => {
    expect((await client.get('/v1/ping')).body).toEqual({ object: 'ping', livemode: false });
    const created = await client.post('/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hook',
      enabled_events: ['*'],
    });
    expect(created.status).toBe(201);
    const listed = await client.get('/v1/webhook_endpoints');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([created.body.id]);
    const [session] = await insertSessions(host, [
      { accountId: ACCOUNT, livemode: false, createdAt: new Date() },
    ]);
    expect((await client.get('/v1/sessions')).body.data.map((s: { id: string }) => s.id)).toEqual([
      session.id,
    ]);
    expect((await client.get(`/v1/sessions/${session.id}`)).body).toMatchObject({ id: session.id });
  });

  it("serves a host's routes behind the key guard to an API key alone (@ApiV1Controller, @UseGuards on a class, a handler, a subclass)", async () => {
    expect((await client.get('/v1/invitations')).body).toEqual({ object: 'list', data: [] });
    expect((await client.get('/v1/reports')).body).toEqual(['report']);
    expect((await client.get('/v1/users/by_key')).body).toEqual({ by: 'key' });
    expect((await client.get('/v1/audits')).body).toEqual(['audit']);
  });

  it('leaves those routes to the key guard: 401 in the envelope without a key', async () => {
    for (const path of [
      '/v1/ping',
      '/v1/webhook_endpoints',
      '/v1/sessions',
      '/v1/invitations',
      '/v1/reports',
      '/v1/users/by_key',
      '/v1/audits',
    ]) {
      const res = await request(host.app.getHttpServer()).get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 401,
        body: errorEnvelope('authentication_error', 'invalid_api_key'),
      });
    }
  });

  it("keeps the host's own /v1 routes behind its guard, whatever API key is sent", async () => {
    const anonymous = await request(host.app.getHttpServer()).get('/v1/users');
    expect({ status: anonymous.status, body: anonymous.body }).toEqual({ status: 401, body: HOST_REFUSAL });
    const withKey = await client.get('/v1/users');
    expect({ status: withKey.status, body: withKey.body }).toEqual({ status: 401, body: HOST_REFUSAL });
    const loggedIn = await request(host.app.getHttpServer()).get('/v1/users').set('x-host-token', HOST_TOKEN);
    expect({ status: loggedIn.status, body: loggedIn.body }).toEqual({ status: 200, body: ['host user'] });
  });

  it('answers an unknown /v1 route in the envelope, where no guard runs', async () => {
    expectResourceMissing(await client.get('/v1/nope'));
  });
});
