import { jest } from '@jest/globals';
import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Get,
  GoneException,
  InternalServerErrorException,
  Logger,
  NotFoundException,
  Param,
  ParseIntPipe,
  UnauthorizedException,
} from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiV1Controller } from '../lib/index.js';
import {
  errorEnvelope,
  expectNoInternals,
  expectParameterInvalid,
  expectResourceMissing,
} from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';

/** A host's own controller written in the module's style, throwing Nest's usual exceptions. */
@ApiV1Controller('host_invitations')
class HostInvitationsController {
  @Get('conflict')
  conflict(): never {
    throw new ConflictException('This invitation was already sent.');
  }

  @Get('forbidden')
  forbidden(): never {
    throw new ForbiddenException('Invitations need a live key.');
  }

  @Get('missing')
  missing(): never {
    throw new NotFoundException('No such invitation: inv_1.');
  }

  @Get('invalid')
  invalid(): never {
    throw new BadRequestException(['email must be an email', 'name should not be empty']);
  }

  @Get('gone')
  gone(): never {
    throw new GoneException('This invitation has expired.');
  }

  @Get('unauthorized')
  unauthorized(): never {
    throw new UnauthorizedException('This invitation needs a live key.');
  }

  @Get('crash')
  crash(): never {
    throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db.internal:5432');
  }

  @Get('http500')
  http500(): never {
    throw new InternalServerErrorException('pool exhausted on db.internal');
  }

  @Get('by_number/:n')
  byNumber(@Param('n', ParseIntPipe) n: number): { n: number } {
    return { n };
  }
}

describe('the error envelope', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({ controllers: [HostInvitationsController] });
    key = await host.createKey('acct_errors', 'test');
  });
  afterAll(() => host.close());

  const server = () => host.app.getHttpServer();
  const withKey = (req: request.Test, given: string | undefined) =>
    given ? req.set('Authorization', `Bearer ${given}`) : req;

  describe('an unknown route under /v1', () => {
    it.each([
      ['GET', '/v1/nope'],
      ['GET', '/v1/sessions/ses_1/transcript'],
      ['GET', '/v1'],
      ['GET', '/v1/'],
      ['POST', '/v1/nope'],
      ['POST', '/v1/sessions'],
      ['DELETE', '/v1/ping'],
      ['PUT', '/v1/me'],
    ])('answers %s %s with 404 resource_missing to a valid key, 401 to none', async (method, path) => {
      const send = () => request(server())[method.toLowerCase() as 'get' | 'post' | 'delete' | 'put'](path);
      const found = await withKey(send(), key);
      expectResourceMissing(found);
      expect(found.headers['content-type']).toMatch(/^application\/json/);
      expectNoInternals(found.body);
      // Every /v1 request carries a key (specification 4): one without a valid key learns nothing of
      // the routes.
      for (const given of [undefined, 'iv_test_nope']) {
        const refused = await withKey(send(), given);
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual(errorEnvelope('authentication_error', 'invalid_api_key'));
      }
    });

    it('names neither the framework nor the route table', async () => {
      const res = await withKey(request(server()).get('/v1/nope'), key).expect(404);
      expect(res.body).toEqual(errorEnvelope('invalid_request_error', 'resource_missing'));
      expect(JSON.stringify(res.body)).not.toMatch(/Cannot GET|statusCode|Not Found/);
    });
  });

  describe('a malformed JSON body on a /v1 POST', () => {
    it.each(['/v1/ping', '/v1/webhook_endpoints', '/v1/nope'])(
      'POST %s answers 400 parameter_invalid in the envelope to a valid key',
      async (path) => {
        const res = await withKey(
          request(server()).post(path).set('content-type', 'application/json').send('{bad'),
          key,
        );
        expectParameterInvalid(res, 'body');
        expectNoInternals(res.body);
        // The parser's own message ("Unexpected token ...") is not passed through.
        expect(res.body.error.message).not.toMatch(/Unexpected|position|token/i);
      },
    );

    it.each(['/v1/ping', '/v1/webhook_endpoints', '/v1/nope'])(
      'POST %s answers 401 invalid_api_key without a valid key: the key is checked first',
      async (path) => {
        for (const given of [undefined, 'iv_test_nope', 'iv_test_' + 'A'.repeat(38)]) {
          const res = await withKey(
            request(server()).post(path).set('content-type', 'application/json').send('{bad'),
            given,
          );
          expect({ status: res.status, body: res.body }).toEqual({
            status: 401,
            body: errorEnvelope('authentication_error', 'invalid_api_key'),
          });
          expect(res.headers['www-authenticate']).toBe('Bearer realm="Interview"');
        }
      },
    );

    it('answers a body over the parser limit with 400 parameter_invalid too', async () => {
      const huge = JSON.stringify({ filler: 'x'.repeat(200 * 1024) });
      const res = await request(server())
        .post('/v1/ping')
        .set('Authorization', `Bearer ${key}`)
        .set('content-type', 'application/json')
        .send(huge);
      expectParameterInvalid(res, 'body');
    });
  });

  describe('a request the body parser or the router refuses under /v1', () => {
    it('answers an unsupported content-encoding with 400 parameter_invalid, not a framework body', async () => {
      const res = await request(server())
        .post('/v1/ping')
        .set('Authorization', `Bearer ${key}`)
        .set('content-type', 'application/json')
        .set('content-encoding', 'bogus')
        .send('{}');
      expectParameterInvalid(res, 'body');
    });

    it('answers a form body with too many fields with 400 parameter_invalid', async () => {
      const res = await request(server())
        .post('/v1/ping')
        .set('Authorization', `Bearer ${key}`)
        .set('content-type', 'application/x-www-form-urlencoded')
        .send('a=1&'.repeat(1500));
      expectParameterInvalid(res, 'body');
    });

    it('answers a path that is not valid percent-encoding with 400 parameter_invalid', async () => {
      const res = await withKey(request(server()).get('/v1/sessions/%E0%A4%A'), key);
      expectParameterInvalid(res, 'url');
      expectNoInternals(res.body);
      const refused = await request(server()).get('/v1/sessions/%E0%A4%A');
      expect(refused.status).toBe(401);
    });
  });

  describe("a host controller in the module's style (@ApiV1Controller)", () => {
    const call = (path: string) =>
      request(server()).get(`/v1/host_invitations/${path}`).set('Authorization', `Bearer ${key}`);

    it.each([
      ['conflict', 409, 'invalid_request_error', 'conflict', 'This invitation was already sent.'],
      ['forbidden', 403, 'permission_error', 'insufficient_scope', 'Invitations need a live key.'],
      ['missing', 404, 'invalid_request_error', 'resource_missing', 'No such invitation: inv_1.'],
      [
        'invalid',
        400,
        'invalid_request_error',
        'parameter_invalid',
        'email must be an email; name should not be empty',
      ],
      ['gone', 400, 'invalid_request_error', 'parameter_invalid', 'This invitation has expired.'],
      [
        'by_number/abc',
        400,
        'invalid_request_error',
        'parameter_invalid',
        'Validation failed (numeric string is expected)',
      ],
    ])(
      'keeps the meaning of a Nest exception (%s) in the envelope',
      async (path, status, type, code, message) => {
        const res = await call(path);
        expect({ status: res.status, body: res.body }).toEqual({
          status,
          body: { error: { type, code, message } },
        });
      },
    );

    it('answers a 401 of its own with WWW-Authenticate, as every 401 of the module', async () => {
      const res = await call('unauthorized');
      expect({ status: res.status, body: res.body }).toEqual({
        status: 401,
        body: errorEnvelope('authentication_error', 'invalid_api_key'),
      });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="Interview"');
    });

    it.each(['crash', 'http500'])(
      'answers an internal failure (%s) with 500 api_error and no detail',
      async (path) => {
        const res = await call(path).expect(500);
        expect(res.body).toEqual(errorEnvelope('api_error', 'api_error'));
        expectNoInternals(res.body);
        expect(JSON.stringify(res.body)).not.toMatch(/hunter2|db\.internal|ECONNREFUSED|pool/);
      },
    );

    it('still needs a key, and answers as the host wrote it when all is well', async () => {
      await request(server()).get('/v1/host_invitations/conflict').expect(401);
      expect((await call('by_number/42').expect(200)).body).toEqual({ n: 42 });
    });
  });

  describe('errors of module routes', () => {
    it('render every 4xx in the envelope without internals', async () => {
      const cases = await Promise.all([
        request(server()).get('/v1/ping'),
        request(server()).get('/v1/ping').set('Authorization', 'Bearer iv_test_nope'),
        request(server()).get('/v1/sessions?limit=1000').set('Authorization', `Bearer ${key}`),
        request(server()).get('/v1/sessions/ses_missing').set('Authorization', `Bearer ${key}`),
      ]);
      expect(cases.map((res) => [res.status, res.body.error?.code])).toEqual([
        [401, 'invalid_api_key'],
        [401, 'invalid_api_key'],
        [400, 'parameter_invalid'],
        [404, 'resource_missing'],
      ]);
      for (const res of cases) expectNoInternals(res.body);
    });
  });

  describe('Request-Id, as on Stripe', () => {
    const REQUEST_ID = /^req_[0-9a-z]{26}$/;

    it('names every /v1 answer, each its own, and no answer outside /v1', async () => {
      const answers = await Promise.all([
        withKey(request(server()).get('/v1/ping'), key),
        request(server()).get('/v1/ping'),
        withKey(request(server()).get('/v1/nope'), key),
        withKey(request(server()).post('/v1/webhook_endpoints'), key)
          .set('content-type', 'application/json')
          .send('{bad'),
        withKey(request(server()).get('/v1/sessions?limit=1000'), key),
        withKey(request(server()).get('/v1/host_invitations/conflict'), key),
        withKey(request(server()).get('/v1/host_invitations/by_number/42'), key),
      ]);
      expect(answers.map((res) => res.status)).toEqual([200, 401, 404, 400, 400, 409, 200]);
      const ids = answers.map((res) => res.headers['request-id']);
      for (const id of ids) expect(id).toMatch(REQUEST_ID);
      expect(new Set(ids).size).toBe(ids.length);
      expect((await request(server()).get('/host/hello').expect(200)).headers['request-id']).toBeUndefined();
    });

    it('logs an unexpected failure under the id the client is answered with', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        const res = await withKey(request(server()).get('/v1/host_invitations/crash'), key).expect(500);
        const id = String(res.headers['request-id']);
        expect(id).toMatch(REQUEST_ID);
        const lines = (): string[] => logged.mock.calls.map(([message]) => String(message));
        expect(lines()).toContainEqual(
          expect.stringContaining(
            `Request ${id} (GET /v1/host_invitations/crash) failed: Error: connect ECONNREFUSED`,
          ),
        );

        // The same failure again, within the minute: a line of its own, without the stack again.
        const again = await withKey(request(server()).get('/v1/host_invitations/crash'), key).expect(500);
        const line = lines().find((message) =>
          message.startsWith(`Request ${String(again.headers['request-id'])} `),
        );
        expect(line).toMatch(
          /failed: Error: connect ECONNREFUSED .*\(its stack was logged within the last minute\)$/,
        );
        expect(line).not.toContain('\n');
      } finally {
        logged.mockRestore();
      }
    });
  });

  describe("the host's own routes are untouched", () => {
    it('GET /host/hello answers as the host wrote it', async () => {
      const res = await request(server()).get('/host/hello').expect(200);
      expect(res.body).toEqual({ hello: 'world' });
    });

    it("a host NotFoundException keeps Nest's default body", async () => {
      const res = await request(server()).get('/host/things/1').expect(404);
      expect(res.body).toEqual({ statusCode: 404, message: 'no thing 1', error: 'Not Found' });
    });

    it("an unknown route outside /v1 keeps Nest's default 404 body", async () => {
      for (const path of ['/nope', '/v1x/ping', '/api/v1/ping']) {
        const res = await request(server()).get(path).expect(404);
        expect(res.body).toEqual({ statusCode: 404, message: `Cannot GET ${path}`, error: 'Not Found' });
      }
    });

    it('a malformed JSON body outside /v1 is not answered in the envelope', async () => {
      const res = await request(server())
        .post('/host/hello')
        .set('content-type', 'application/json')
        .send('{bad');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400 });
      expect(res.body.error).not.toEqual(expect.objectContaining({ code: expect.anything() }));
    });

    it("the host's own route under /v1 answers without a key", async () => {
      const res = await request(server()).get('/v1/host_status').expect(200);
      expect(res.body).toEqual({ ok: true });
    });
  });

  describe('an unexpected failure', () => {
    let broken: TestHost;
    let brokenKey: string;

    beforeAll(async () => {
      broken = await createTestHost();
      brokenKey = await broken.createKey('acct_broken', 'test');
      // A real failure deep in the stack: the host's table is gone.
      await broken.app.get(DataSource).query('DROP TABLE host_sessions');
    });
    afterAll(() => broken.close());

    it('answers 500 api_error and says nothing internal', async () => {
      for (const path of ['/v1/sessions', '/v1/sessions/ses_1']) {
        const res = await request(broken.app.getHttpServer())
          .get(path)
          .set('Authorization', `Bearer ${brokenKey}`)
          .expect(500);
        expect(res.body).toEqual(errorEnvelope('api_error', 'api_error'));
        expectNoInternals(res.body);
        expect(JSON.stringify(res.body)).not.toMatch(/host_sessions|SQLITE|relation|QueryFailed/i);
      }
    });
  });
});
