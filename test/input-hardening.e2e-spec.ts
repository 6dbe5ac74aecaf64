import { Get, Param, Query } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import {
  ApiV1Controller,
  DeliveryEntity,
  IdParamPipe,
  EventEntity,
  EventPublisher,
  InvalidModuleOptionsError,
  ParameterInvalidError,
  type PublishEventInput,
  WebhookEndpointEntity,
} from '../lib/index.js';
import { resolveOptions } from '../lib/interview-api.options.js';
import { type ApiClient, apiClient } from './support/api-client.js';
import { expectParameterInvalid, expectResourceMissing } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { insertSessions } from './support/sessions.js';
import { createEndpoint, type EndpointWithSecret } from './support/webhooks.js';

const NUL = '\u0000';
const PATH = '/v1/webhook_endpoints';
/** The longest event type the events table holds (varchar(128)). */
const LONGEST_TYPE = `session.${'x'.repeat(120)}`;
/** Never sent to: the endpoints below take only this type, and nothing publishes it. */
const QUIET_TYPE = 'result.updated';

class HostSearchQuery {
  @IsOptional()
  @IsString()
  q?: string;
}

/** A host's own routes in the module's style: a query DTO, and a path id with the module's pipe. */
@ApiV1Controller('host_candidates')
class HostCandidatesController {
  @Get()
  search(@Query() query: HostSearchQuery): { q: string | null } {
    return { q: query.q ?? null };
  }

  @Get(':id')
  retrieve(@Param('id', new IdParamPipe('candidate')) id: string): { id: string } {
    return { id };
  }
}

/**
 * Bad input gets a clear error in the envelope and changes nothing (docs/decisions.md, Errors), on
 * PostgreSQL too, which refuses NUL in text: run with DB=postgres as well.
 */
describe('input hardening', () => {
  let host: TestHost;
  let key: string;
  let client: ApiClient;
  let endpoint: EndpointWithSecret;
  let dataSource: DataSource;

  beforeAll(async () => {
    host = await createTestHost({
      module: { eventTypes: ['session.completed', LONGEST_TYPE] },
      controllers: [HostCandidatesController],
    });
    dataSource = host.app.get(DataSource);
    key = await host.createKey('acct_hardening', 'test');
    client = apiClient(host, key);
    endpoint = await createEndpoint(client, 'http://127.0.0.1:9/hook', [QUIET_TYPE]);
  });
  afterAll(() => host.close());

  const stored = async (): Promise<WebhookEndpointEntity | null> =>
    dataSource.getRepository(WebhookEndpointEntity).findOneBy({ id: endpoint.id });
  const endpointCount = (): Promise<number> => dataSource.getRepository(WebhookEndpointEntity).count();

  function call(method: 'get' | 'post' | 'patch' | 'delete', path: string): request.Test {
    const agent = request(host.app.getHttpServer());
    return agent[method](path).set('Authorization', `Bearer ${key}`);
  }

  /** A JSON body exactly as written: a JavaScript object literal cannot hold an own `__proto__`. */
  function sendJson(method: 'post' | 'patch', path: string, json: string): request.Test {
    return call(method, path).type('json').send(json);
  }

  function expectInvalid(res: Response, param: string, message: string): void {
    expectParameterInvalid(res, param);
    expect(res.body.error.message).toBe(message);
  }

  describe('a NUL character in a body', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['url', { url: `http://127.0.0.1:9/a${NUL}b`, enabled_events: ['*'] }, 'url'],
      [
        'description',
        { url: 'http://127.0.0.1:9/a', enabled_events: ['*'], description: `a${NUL}` },
        'description',
      ],
      [
        'an enabled_events entry',
        { url: 'http://127.0.0.1:9/a', enabled_events: [`result.ready${NUL}`] },
        'enabled_events',
      ],
    ])('POST: in %s answers 400 naming the field, and creates nothing', async (_field, body, param) => {
      const before = await endpointCount();
      expectInvalid(
        await client.post(PATH, body),
        param,
        `${param} must not contain NUL (\\u0000) characters.`,
      );
      expect(await endpointCount()).toBe(before);
    });

    it.each<[string, Record<string, unknown>]>([
      ['url', { url: `http://127.0.0.1:9/${NUL}` }],
      ['description', { description: NUL }],
    ])('PATCH: in %s answers 400 naming the field, and changes nothing', async (param, body) => {
      const before = await stored();
      expectInvalid(
        await client.patch(`${PATH}/${endpoint.id}`, body),
        param,
        `${param} must not contain NUL (\\u0000) characters.`,
      );
      expect(await stored()).toEqual(before);
    });
  });

  describe('half a surrogate pair, which neither database stores as sent', () => {
    it.each<[string, Record<string, unknown>, string]>([
      [
        'description',
        { url: 'http://127.0.0.1:9/a', enabled_events: ['*'], description: '\ud800x' },
        'description',
      ],
      ['url', { url: 'http://127.0.0.1:9/\udc00', enabled_events: ['*'] }, 'url'],
      ['a field name', { url: 'http://127.0.0.1:9/a', enabled_events: ['*'], ['\ud83d']: 1 }, '\ud83d'],
    ])('POST: in %s answers 400 naming it, and creates nothing', async (_field, body, param) => {
      const before = await endpointCount();
      expectInvalid(
        await client.post(PATH, body),
        param,
        `${param} must be valid Unicode text: it holds half of a UTF-16 surrogate pair.`,
      );
      expect(await endpointCount()).toBe(before);
    });

    it('PATCH: answers 400 and changes nothing; a whole pair is stored as sent', async () => {
      const before = await stored();
      expectParameterInvalid(
        await client.patch(`${PATH}/${endpoint.id}`, { description: 'a\udbffb' }),
        'description',
      );
      expect(await stored()).toEqual(before);
      const emoji = await client.patch(`${PATH}/${endpoint.id}`, { description: 'ok \ud83d\ude00' });
      expect(emoji.status).toBe(200);
      expect((await client.get(`${PATH}/${endpoint.id}`)).body.description).toBe('ok \ud83d\ude00');
    });
  });

  describe('a NUL character in a path id answers 404 as any unknown id does', () => {
    it.each<[string, string, () => string, string, string]>([
      ['GET', 'an endpoint', () => `${PATH}/%00`, 'id', 'No such webhook endpoint: \u0000.'],
      ['PATCH', 'an endpoint', () => `${PATH}/%00`, 'id', 'No such webhook endpoint: \u0000.'],
      ['DELETE', 'an endpoint', () => `${PATH}/%00`, 'id', 'No such webhook endpoint: \u0000.'],
      ['POST', 'rotate_secret', () => `${PATH}/%00/rotate_secret`, 'id', 'No such webhook endpoint: \u0000.'],
      ['POST', 'test', () => `${PATH}/%00/test`, 'id', 'No such webhook endpoint: \u0000.'],
      [
        'GET',
        'deliveries of an endpoint',
        () => `${PATH}/%00/deliveries`,
        'id',
        'No such webhook endpoint: \u0000.',
      ],
      [
        'GET',
        'a delivery',
        () => `${PATH}/${endpoint.id}/deliveries/%00`,
        'delivery_id',
        'No such webhook delivery: \u0000.',
      ],
      [
        'POST',
        'a replay',
        () => `${PATH}/${endpoint.id}/deliveries/%00/replay`,
        'delivery_id',
        'No such webhook delivery: \u0000.',
      ],
      ['GET', 'an event', () => '/v1/events/%00', 'id', 'No such event: \u0000.'],
      ['GET', 'a host resource', () => '/v1/sessions/%00', 'id', 'No such session: \u0000.'],
    ])('%s %s', async (method, _what, path, param, message) => {
      const before = await stored();
      const sent = call(method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete', path());
      const res = await (method === 'PATCH' ? sent.send({ description: 'changed' }) : sent);
      expectResourceMissing(res);
      expect(res.body.error).toEqual(expect.objectContaining({ param, message }));
      expect(await stored()).toEqual(before);
    });

    it('GET a known endpoint id with NUL appended', async () => {
      const res = await client.get(`${PATH}/${endpoint.id}%00`);
      expectResourceMissing(res);
      expect(res.body.error.message).toBe(`No such webhook endpoint: ${endpoint.id}${NUL}.`);
    });

    it('still finds the endpoint and the host resource by their real ids (the control)', async () => {
      expect((await client.get(`${PATH}/${endpoint.id}`)).status).toBe(200);
      const [session] = await insertSessions(host, [
        { accountId: 'acct_hardening', livemode: false, createdAt: new Date() },
      ]);
      expect((await client.get(`/v1/sessions/${session.id}`)).status).toBe(200);
    });
  });

  describe('a NUL character in a list query answers 400 naming the parameter', () => {
    it.each<[string, () => string, string]>([
      ['type', () => '/v1/events', 'type'],
      ['created_gte', () => '/v1/events', 'created_gte'],
      ['limit', () => '/v1/events', 'limit'],
      ['cursor', () => PATH, 'cursor'],
      ['status', () => `${PATH}/${endpoint.id}/deliveries`, 'status'],
      ['event_id', () => `${PATH}/${endpoint.id}/deliveries`, 'event_id'],
      ['a host resource filter', () => '/v1/sessions', 'status'],
    ])('%s', async (_what, path, param) => {
      expectInvalid(
        await client.get(path(), { [param]: `a${NUL}` }),
        param,
        `${param} must not contain NUL (\\u0000) characters.`,
      );
    });
  });

  describe("a NUL character on a host's own @ApiV1Controller routes", () => {
    it('in a query DTO field answers 400 naming it, before the handler runs', async () => {
      expect((await client.get('/v1/host_candidates', { q: 'ada' })).body).toEqual({ q: 'ada' });
      expectInvalid(
        await client.get('/v1/host_candidates', { q: `a${NUL}` }),
        'q',
        'q must not contain NUL (\\u0000) characters.',
      );
    });

    it('in a path id taken with IdParamPipe answers 404 as any unknown id does', async () => {
      expect((await client.get('/v1/host_candidates/cand_1')).body).toEqual({ id: 'cand_1' });
      const res = await client.get('/v1/host_candidates/cand_1%00');
      expectResourceMissing(res);
      expect(res.body.error).toEqual(
        expect.objectContaining({ param: 'id', message: `No such candidate: cand_1${NUL}.` }),
      );
    });
  });

  describe('webhook endpoint URLs', () => {
    it.each([
      ['  http://127.0.0.1:9/a  ', 'url must not begin or end with whitespace'],
      ['http://127.0.0.1:9/a\n', 'url must not begin or end with whitespace'],
      ['http://127.0.\n0.1:9/a', 'url must not contain control characters such as tabs or line breaks'],
      ['http://127.0.0.1:9/a\tb', 'url must not contain control characters such as tabs or line breaks'],
    ])('refuses %j, and creates nothing', async (url, message) => {
      const before = await endpointCount();
      expectInvalid(await client.post(PATH, { url, enabled_events: ['*'] }), 'url', message);
      expect(await endpointCount()).toBe(before);
    });

    it('refuses one on PATCH, leaving the endpoint unchanged', async () => {
      const before = await stored();
      expectInvalid(
        await client.patch(`${PATH}/${endpoint.id}`, { url: ' http://127.0.0.1:9/b' }),
        'url',
        'url must not begin or end with whitespace',
      );
      expect(await stored()).toEqual(before);
    });
  });

  describe('body fields Nest and class-transformer drop before the whitelist sees them', () => {
    const create = (extra: string): string =>
      `{"url": "http://127.0.0.1:9/a", "enabled_events": ["*"], ${extra}}`;

    it.each([
      ['constructor', create('"constructor": {"name": "x"}')],
      ['__proto__', create('"__proto__": {"status": "disabled"}')],
      ['prototype', create('"prototype": 1')],
    ])('POST: %s is refused as an unknown parameter, and nothing is created', async (param, json) => {
      const before = await endpointCount();
      expectInvalid(await sendJson('post', PATH, json), param, `Received unknown parameter: ${param}.`);
      expect(await endpointCount()).toBe(before);
    });

    it.each([
      ['constructor', '{"description": "changed", "constructor": 1}'],
      ['__proto__', '{"description": "changed", "__proto__": {"disabled": true}}'],
    ])('PATCH: %s is refused as an unknown parameter, and nothing changes', async (param, json) => {
      const before = await stored();
      expectInvalid(
        await sendJson('patch', `${PATH}/${endpoint.id}`, json),
        param,
        `Received unknown parameter: ${param}.`,
      );
      expect(await stored()).toEqual(before);
    });
  });

  describe('a body that is not a JSON object', () => {
    const message = 'The request body must be a JSON object.';

    it.each(['[]', '[{"url": "http://127.0.0.1:9/a", "enabled_events": ["*"]}]', '[1, 2]'])(
      'POST %s answers one 400 naming body, and creates nothing',
      async (json) => {
        const before = await endpointCount();
        expectInvalid(await sendJson('post', PATH, json), 'body', message);
        expect(await endpointCount()).toBe(before);
      },
    );

    it.each(['[]', '[{"description": "changed"}]'])(
      'PATCH %s answers one 400 naming body, and changes nothing',
      async (json) => {
        const before = await stored();
        expectInvalid(await sendJson('patch', `${PATH}/${endpoint.id}`, json), 'body', message);
        expect(await stored()).toEqual(before);
      },
    );
  });

  describe('a body nested deeper than any parameters need', () => {
    const message = 'The request body nests objects and arrays more than 32 levels deep.';
    /** `{"<field>": [[...]]}` with the brackets nested `levels` deep below the body. */
    const nested = (field: string, levels: number): string =>
      `{"${field}": ${'['.repeat(levels)}${']'.repeat(levels)}}`;

    it.each([2_000, 50_000])(
      'POST with %i levels answers 400 naming body, with or without an Idempotency-Key, and creates nothing',
      async (levels) => {
        const before = await endpointCount();
        expectInvalid(await sendJson('post', PATH, nested('url', levels)), 'body', message);
        const keyed = sendJson('post', PATH, nested('url', levels)).set('Idempotency-Key', `deep-${levels}`);
        expectInvalid(await keyed, 'body', message);
        expect(await endpointCount()).toBe(before);
      },
    );

    it('PATCH with 4,000 levels answers 400 naming body, and changes nothing', async () => {
      const before = await stored();
      expectInvalid(
        await sendJson('patch', `${PATH}/${endpoint.id}`, nested('description', 4_000)),
        'body',
        message,
      );
      expect(await stored()).toEqual(before);
    });

    it('lets 32 levels through to the usual checks', async () => {
      // The body itself is a level: 31 more below it.
      const res = await sendJson('patch', `${PATH}/${endpoint.id}`, nested('description', 31));
      expectParameterInvalid(res, 'description');
      expect(res.body.error.message).not.toBe(message);
    });
  });

  describe('each wrong type is named as such, before any limit (stopAtFirstError)', () => {
    const valid = { url: 'http://127.0.0.1:9/a', enabled_events: ['*'] };

    it.each<[string, Record<string, unknown>, string, string]>([
      ['url: 5', { ...valid, url: 5 }, 'url', 'url must be a string.'],
      [
        'url too long',
        { ...valid, url: `http://127.0.0.1:9/${'a'.repeat(2048)}` },
        'url',
        'url must be shorter than or equal to 2048 characters.',
      ],
      [
        'enabled_events: "x"',
        { ...valid, enabled_events: 'x' },
        'enabled_events',
        'enabled_events must be an array.',
      ],
      [
        'enabled_events: [5]',
        { ...valid, enabled_events: [5] },
        'enabled_events',
        'each value in enabled_events must be a string.',
      ],
      [
        'enabled_events: []',
        { ...valid, enabled_events: [] },
        'enabled_events',
        'enabled_events must list at least one event type, or be ["*"].',
      ],
      [
        'enabled_events of 101 entries',
        { ...valid, enabled_events: Array.from({ length: 101 }, () => 'result.ready') },
        'enabled_events',
        'enabled_events must contain no more than 100 elements.',
      ],
      ['description: 5', { ...valid, description: 5 }, 'description', 'description must be a string.'],
      [
        'description too long',
        { ...valid, description: 'd'.repeat(1025) },
        'description',
        'description must be shorter than or equal to 1024 characters.',
      ],
    ])('POST with %s', async (_case, body, param, message) => {
      const before = await endpointCount();
      expectInvalid(await client.post(PATH, body), param, message);
      expect(await endpointCount()).toBe(before);
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      ['url: null', { url: null }, 'url', 'url must be a string.'],
      ['url: 5', { url: 5 }, 'url', 'url must be a string.'],
      [
        'enabled_events: null',
        { enabled_events: null },
        'enabled_events',
        'enabled_events must be an array.',
      ],
      ['enabled_events: "x"', { enabled_events: 'x' }, 'enabled_events', 'enabled_events must be an array.'],
      ['description: 5', { description: 5 }, 'description', 'description must be a string.'],
      ['disabled: "yes"', { disabled: 'yes' }, 'disabled', 'disabled must be a boolean value.'],
    ])('PATCH with %s, changing nothing', async (_case, body, param, message) => {
      const before = await stored();
      expectInvalid(await client.patch(`${PATH}/${endpoint.id}`, body), param, message);
      expect(await stored()).toEqual(before);
    });
  });

  describe('lengths are counted as the columns count characters (code points)', () => {
    // "a" and a variation selector (U+FE0F, as in most emoji) are two characters to the database
    // and one to class-validator's MaxLength.
    const selected = (n: number): string => 'a\uFE0F'.repeat(n);
    const valid = { url: 'http://127.0.0.1:9/a', enabled_events: ['*'] };

    it.each<[string, Record<string, unknown>, string, string]>([
      [
        'a description of 1,025 characters, half of them variation selectors',
        { ...valid, description: `${selected(512)}d` },
        'description',
        'description must be shorter than or equal to 1024 characters.',
      ],
      [
        'a url of 2,049 characters, most of them variation selectors',
        { ...valid, url: `http://127.0.0.1:9/${selected(1015)}` },
        'url',
        'url must be shorter than or equal to 2048 characters.',
      ],
    ])('POST with %s answers 400 and creates nothing', async (_case, body, param, message) => {
      const before = await endpointCount();
      expectInvalid(await client.post(PATH, body), param, message);
      expect(await endpointCount()).toBe(before);
    });

    it('PATCH with such a description answers 400 and changes nothing', async () => {
      const before = await stored();
      expectInvalid(
        await client.patch(`${PATH}/${endpoint.id}`, { description: selected(513) }),
        'description',
        'description must be shorter than or equal to 1024 characters.',
      );
      expect(await stored()).toEqual(before);
    });

    it('stores 1,024 characters as sent, whether variation selectors or emoji of two UTF-16 units', async () => {
      for (const description of [selected(512), '\u{1F600}'.repeat(1024)]) {
        const res = await client.post(PATH, { ...valid, description });
        expect(res.status).toBe(201);
        expect((await client.get(`${PATH}/${res.body.id}`)).body.description).toBe(description);
        expect((await client.delete(`${PATH}/${res.body.id}`)).status).toBe(200);
      }
    });
  });

  describe('EventPublisher.publish', () => {
    let publisher: EventPublisher;
    const valid = (): PublishEventInput => ({
      accountId: 'acct_hardening',
      type: 'result.ready',
      livemode: false,
      data: { id: 'res_1', object: 'result' },
    });
    const rowCounts = async (): Promise<number[]> => [
      await dataSource.getRepository(EventEntity).count(),
      await dataSource.getRepository(DeliveryEntity).count(),
    ];

    beforeAll(() => {
      publisher = host.app.get(EventPublisher);
    });

    const deeplyNested = (levels: number): unknown => {
      let value: unknown = {};
      for (let level = 0; level < levels; level++) value = { value };
      return value;
    };
    const circular: Record<string, unknown> = { id: 'res_1', object: 'result' };
    circular.self = circular;

    it.each<[string, () => unknown, string, string]>([
      [
        'an accountId of 256 characters',
        () => ({ ...valid(), accountId: 'a'.repeat(256) }),
        'accountId',
        'accountId must be at most 255 characters.',
      ],
      [
        'an accountId with half a surrogate pair',
        () => ({ ...valid(), accountId: 'acct\ud800' }),
        'accountId',
        'accountId must be valid Unicode text: it holds half of a UTF-16 surrogate pair.',
      ],
      [
        'data nested 100,000 levels deep',
        () => ({ ...valid(), data: { id: 'res_1', object: 'result', nested: deeplyNested(100_000) } }),
        'data',
        'data is nested too deeply to be serialised as JSON.',
      ],
      [
        'an accountId with NUL',
        () => ({ ...valid(), accountId: `acct${NUL}` }),
        'accountId',
        'accountId must not contain NUL (\\u0000) characters.',
      ],
      [
        'data whose toJSON answers a string',
        () => ({ ...valid(), data: { id: 'res_1', object: 'result', toJSON: () => 'res_1' } }),
        'data',
        'data must be the resource object.',
      ],
      [
        'data whose toJSON drops the id',
        () => ({ ...valid(), data: { id: 'res_1', object: 'result', toJSON: () => ({ object: 'result' }) } }),
        'data',
        'data must have a string id and a string object.',
      ],
      [
        'a Date as data',
        () => ({ ...valid(), data: new Date(0) }),
        'data',
        'data must be the resource object.',
      ],
      [
        'data with a BigInt field',
        () => ({ ...valid(), data: { id: 'res_1', object: 'result', score: 10n } }),
        'data',
        'data must be serialisable as JSON: Do not know how to serialize a BigInt.',
      ],
      [
        'circular data',
        () => ({ ...valid(), data: circular }),
        'data',
        'data must be serialisable as JSON: Converting circular structure to JSON.',
      ],
    ])('refuses %s with ParameterInvalidError, writing nothing', async (_case, make, param, message) => {
      const before = await rowCounts();
      const refusal: unknown = await publisher.publish(make() as PublishEventInput).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(ParameterInvalidError);
      // Read out: toMatchObject compares an Error by its message alone.
      const { code, param: named, message: said } = refusal as ParameterInvalidError;
      expect({ code, param: named, message: said }).toEqual({ code: 'parameter_invalid', param, message });
      expect(await rowCounts()).toEqual(before);
    });

    it('counts accountId characters as the column does: 255 emoji are 510 UTF-16 units', async () => {
      const event = await publisher.publish({ ...valid(), accountId: '\u{1F600}'.repeat(255) });
      expect(await dataSource.getRepository(EventEntity).countBy({ id: event.id })).toBe(1);
    });

    it('accepts an accountId of 255 characters and stores the serialised data (the control)', async () => {
      const event = await publisher.publish({
        ...valid(),
        accountId: 'a'.repeat(255),
        data: { id: 'res_1', object: 'result', toJSON: () => ({ id: 'res_2', object: 'result' }) },
      });
      expect(event.data.object).toEqual({ id: 'res_2', object: 'result' });
      expect(await dataSource.getRepository(EventEntity).countBy({ id: event.id })).toBe(1);
    });

    it('publishes a host type of 128 characters, the longest the options accept', async () => {
      const event = await publisher.publish({ ...valid(), type: LONGEST_TYPE });
      expect(event.type).toBe(LONGEST_TYPE);
    });
  });

  describe('the eventTypes option', () => {
    const options = {
      keyPrefix: 'iv',
      cursorSecret: 'x'.repeat(32),
      redis: { host: '127.0.0.1', port: 6379 },
    };

    it('refuses a type longer than 128 characters when the options are read', () => {
      const read = (): unknown => resolveOptions({ ...options, eventTypes: [`${LONGEST_TYPE}x`] });
      expect(read).toThrow(InvalidModuleOptionsError);
      expect(read).toThrow(/option "eventTypes".*128 characters/);
    });

    it('accepts one of 128 characters', () => {
      expect(resolveOptions({ ...options, eventTypes: [LONGEST_TYPE] }).eventTypes).toContain(LONGEST_TYPE);
    });
  });
});
