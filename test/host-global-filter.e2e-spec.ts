import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  HttpException,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import request from 'supertest';
import { ApiExceptionFilter, ApiKeyGuard, RequireScopes } from '../lib/index.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/** A host's global filter with an error shape of its own, for every exception. */
@Catch()
class RewrappingFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const detail = exception instanceof HttpException ? exception.getResponse() : null;
    host.switchToHttp().getResponse<Response>().status(status).json({ hostError: true, detail });
  }
}

/** The key guard alone on a host route: its refusals are the host filter's to answer. */
@Controller('guard_alone')
@UseGuards(ApiKeyGuard)
@RequireScopes('billing:read')
class GuardAloneController {
  @Get()
  get(): { ok: boolean } {
    return { ok: true };
  }
}

/** The key guard with the module's filter beside it, which comes before the host's global one. */
@Controller('guard_and_filter')
@UseGuards(ApiKeyGuard)
@UseFilters(ApiExceptionFilter)
@RequireScopes('billing:read')
class GuardAndFilterController {
  @Get()
  get(): { ok: boolean } {
    return { ok: true };
  }
}

describe('a host with a global exception filter of its own (app.useGlobalFilters)', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({
      controllers: [GuardAloneController, GuardAndFilterController],
      configure: (app) => app.useGlobalFilters(new RewrappingFilter()),
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  const get = (path: string, key?: string): request.Test => {
    const req = request(host.app.getHttpServer()).get(path);
    return key === undefined ? req : req.set('Authorization', `Bearer ${key}`);
  };

  it("answers the module's own routes in the envelope", async () => {
    const res = await get('/v1/ping');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: errorEnvelope('authentication_error', 'invalid_api_key'),
    });
  });

  it("leaves the guard's refusals on a route with ApiKeyGuard alone to that filter, with their headers", async () => {
    const unauthenticated = await get('/guard_alone');
    expect({ status: unauthenticated.status, body: unauthenticated.body }).toEqual({
      status: 401,
      body: { hostError: true, detail: errorEnvelope('authentication_error', 'invalid_api_key') },
    });
    expect(unauthenticated.headers['www-authenticate']).toBe('Bearer realm="Interview"');
    const narrow = await get('/guard_alone', await host.createKey('acct_filtered', 'test', ['results:read']));
    expect({ status: narrow.status, body: narrow.body }).toEqual({
      status: 403,
      body: { hostError: true, detail: errorEnvelope('permission_error', 'insufficient_scope') },
    });
  });

  it('answers in the envelope where @UseFilters(ApiExceptionFilter) is beside the guard', async () => {
    const unauthenticated = await get('/guard_and_filter');
    expect({ status: unauthenticated.status, body: unauthenticated.body }).toEqual({
      status: 401,
      body: errorEnvelope('authentication_error', 'invalid_api_key'),
    });
    expect(unauthenticated.headers['www-authenticate']).toBe('Bearer realm="Interview"');
    const narrow = await get(
      '/guard_and_filter',
      await host.createKey('acct_filtered', 'test', ['results:read']),
    );
    expect({ status: narrow.status, body: narrow.body }).toEqual({
      status: 403,
      body: errorEnvelope('permission_error', 'insufficient_scope'),
    });
    const allowed = await get(
      '/guard_and_filter',
      await host.createKey('acct_filtered', 'test', ['billing:read']),
    );
    expect({ status: allowed.status, body: allowed.body }).toEqual({ status: 200, body: { ok: true } });
  });
});
