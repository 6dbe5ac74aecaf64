import {
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
  ValidationPipe,
} from '@nestjs/common';
import type { Request } from 'express';
import { map, type Observable } from 'rxjs';
import request, { type Response } from 'supertest';
import { type ApiClient, apiClient } from './support/api-client.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost, type TestHostOptions } from './support/host-app.js';
import { createEndpoint } from './support/webhooks.js';

const PATH = '/v1/webhook_endpoints';
const HOOK_URL = 'http://127.0.0.1:9/hook';

/** A request to the module, made the same way on every host: `:id` is that host's own endpoint. */
interface Case {
  name: string;
  send(client: ApiClient, endpointId: string): Promise<Response>;
  /** The answer the module gives whatever the host's pipes: status, code and param. */
  expected: { status: number; code: string; param: string };
}

const CASES: Case[] = [
  {
    name: 'a create without url',
    send: (client) => client.post(PATH, { enabled_events: ['*'] }),
    expected: { status: 400, code: 'parameter_missing', param: 'url' },
  },
  {
    name: 'a url of the wrong type (told its type, not a length)',
    send: (client) => client.post(PATH, { url: 5, enabled_events: ['*'] }),
    expected: { status: 400, code: 'parameter_invalid', param: 'url' },
  },
  {
    name: 'an unknown field in a create',
    send: (client) => client.post(PATH, { url: HOOK_URL, enabled_events: ['*'], bogus: 1 }),
    expected: { status: 400, code: 'parameter_invalid', param: 'bogus' },
  },
  {
    name: 'an array for a body',
    send: (client) => client.post(PATH, [{ url: HOOK_URL, enabled_events: ['*'] }]),
    expected: { status: 400, code: 'parameter_invalid', param: 'body' },
  },
  {
    name: 'a PATCH with disabled: "yes"',
    send: (client, id) => client.patch(`${PATH}/${id}`, { disabled: 'yes' }),
    expected: { status: 400, code: 'parameter_invalid', param: 'disabled' },
  },
  {
    name: 'an unknown field in a PATCH',
    send: (client, id) => client.patch(`${PATH}/${id}`, { bogus: 1 }),
    expected: { status: 400, code: 'parameter_invalid', param: 'bogus' },
  },
  {
    name: 'the endpoint list with limit=abc',
    send: (client) => client.get(PATH, { limit: 'abc' }),
    expected: { status: 400, code: 'parameter_invalid', param: 'limit' },
  },
  {
    name: 'the delivery list with limit=abc',
    send: (client, id) => client.get(`${PATH}/${id}/deliveries`, { limit: 'abc' }),
    expected: { status: 400, code: 'parameter_invalid', param: 'limit' },
  },
  {
    name: 'the event list with limit=abc',
    send: (client) => client.get('/v1/events', { limit: 'abc' }),
    expected: { status: 400, code: 'parameter_invalid', param: 'limit' },
  },
  {
    name: 'a host resource list with limit=abc',
    send: (client) => client.get('/v1/sessions', { limit: 'abc' }),
    expected: { status: 400, code: 'parameter_invalid', param: 'limit' },
  },
];

/** A host, a key of it, and an endpoint of that key to PATCH. */
interface Booted {
  host: TestHost;
  client: ApiClient;
  endpointId: string;
}

async function boot(options: TestHostOptions): Promise<Booted> {
  const host = await createTestHost(options);
  const client = apiClient(host, await host.createKey('acct_globals', 'test'));
  const endpoint = await createEndpoint(client, HOOK_URL, ['*']);
  return { host, client, endpointId: endpoint.id };
}

/** Nest's most common set-ups: the strict one of its validation docs, and the bare one. */
const HOST_PIPES: [string, () => ValidationPipe][] = [
  [
    'ValidationPipe({ whitelist, forbidNonWhitelisted, transform })',
    () => new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
  ],
  ['ValidationPipe()', () => new ValidationPipe()],
];

/**
 * The module validates its own routes: a host's global ValidationPipe, which Nest runs before the
 * module's pipes, must not answer for it (with its own messages and no param).
 */
describe.each(HOST_PIPES)('a host with app.useGlobalPipes(new %s)', (_name, hostPipe) => {
  let alone: Booted;
  let withPipe: Booted;

  beforeAll(async () => {
    alone = await boot({});
    withPipe = await boot({ configure: (app) => app.useGlobalPipes(hostPipe()) });
  });
  afterAll(async () => {
    await withPipe?.host.close();
    await alone?.host.close();
  });

  it.each(CASES.map((c) => [c.name, c] as const))('answers %s exactly as without it', async (_case, c) => {
    const res = await c.send(withPipe.client, withPipe.endpointId);
    const without = await c.send(alone.client, alone.endpointId);
    expect({ status: res.status, body: res.body }).toEqual({
      status: c.expected.status,
      body: errorEnvelope('invalid_request_error', c.expected.code, c.expected.param),
    });
    expect({ status: res.status, body: res.body }).toEqual({ status: without.status, body: without.body });
  });

  it('answers a valid create 201 with the endpoint, as without it', async () => {
    const body = {
      url: HOOK_URL,
      enabled_events: ['session.completed'],
      description: 'from a host with pipes',
    };
    const res = await withPipe.client.post(PATH, body);
    const without = await alone.client.post(PATH, body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'webhook_endpoint', ...body, status: 'enabled' });
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(without.body).sort());
  });

  it('applies a valid PATCH, as without it', async () => {
    const res = await withPipe.client.patch(`${PATH}/${withPipe.endpointId}`, {
      disabled: true,
      description: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: withPipe.endpointId, status: 'disabled', description: null });
  });
});

/** Wraps every answer, as hosts do for a `{ data }` convention. */
class WrapInData implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ data })));
  }
}

/** Reads every answer, as a key-case transformer does: it cannot take `undefined`. */
class StampAnswer implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next
      .handle()
      .pipe(
        map((data: unknown) => ({ ...Object.fromEntries(Object.entries(data as object)), stamped: true })),
      );
  }
}

/** A host's guard over everything: a session cookie it never finds, except where it lets requests through. */
class HostSessionGuard implements CanActivate {
  constructor(private readonly letThrough: (path: string) => boolean = () => false) {}

  canActivate(context: ExecutionContext): boolean {
    return this.letThrough(context.switchToHttp().getRequest<Request>().path);
  }
}

/**
 * Host-global guards and interceptors are the host's: they run on the module's routes as on any
 * other, and the README tells the host so.
 */
describe('host-global guards and interceptors on the module routes', () => {
  let host: TestHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  /** A host with `configure`'s globals, a client with a key of it, and one without a valid key. */
  async function start(
    configure: (app: INestApplication) => void,
  ): Promise<{ client: ApiClient; keyless: ApiClient }> {
    const started = await createTestHost({ configure });
    host = started;
    return {
      client: apiClient(started, await started.createKey('acct_globals', 'test')),
      keyless: apiClient(started, 'iv_test_unknown'),
    };
  }

  it('a global interceptor wraps the module answers too, but not its errors', async () => {
    const { client } = await start((app) => app.useGlobalInterceptors(new WrapInData()));
    const ping = await client.get('/v1/ping');
    expect({ status: ping.status, body: ping.body }).toEqual({
      status: 200,
      body: { data: { object: 'ping', livemode: false } },
    });
    const refused = await client.get(PATH, { limit: 'abc' });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: errorEnvelope('invalid_request_error', 'parameter_invalid', 'limit'),
    });
  });

  it('a global interceptor that reads the answer is given a replayed one too, which is sent as first answered', async () => {
    host = await createTestHost({
      configure: (app) => app.useGlobalInterceptors(new StampAnswer()),
      module: { webhooks: { allowInsecureUrls: true } },
    });
    const key = await host.createKey('acct_globals', 'test');
    const create = (): request.Test =>
      request(host!.app.getHttpServer())
        .post(PATH)
        .set('Authorization', `Bearer ${key}`)
        .set('Idempotency-Key', 'create-once')
        .send({ url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] });
    const first = await create();
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ object: 'webhook_endpoint', stamped: true });
    const retry = await create();
    expect({
      status: retry.status,
      body: retry.body,
      replayed: retry.headers['idempotent-replayed'],
    }).toEqual({
      status: 201,
      body: first.body,
      replayed: 'true',
    });
  });

  it('a global guard runs before the key is checked, its refusal in the envelope', async () => {
    const { client, keyless } = await start((app) => app.useGlobalGuards(new HostSessionGuard()));
    for (const res of [await client.get('/v1/ping'), await keyless.get('/v1/ping')]) {
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: errorEnvelope('permission_error', 'insufficient_scope'),
      });
    }
  });

  it('a global guard that lets /v1 through leaves the module routes to the key', async () => {
    const { client, keyless } = await start((app) =>
      app.useGlobalGuards(new HostSessionGuard((path) => path.startsWith('/v1/'))),
    );
    expect((await client.get('/v1/ping')).status).toBe(200);
    const refused = await keyless.get('/v1/ping');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 401,
      body: errorEnvelope('authentication_error', 'invalid_api_key'),
    });
  });
});
