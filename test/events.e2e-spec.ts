import { jest } from '@jest/globals';
import { DataSource, In, type QueryRunner } from 'typeorm';
import {
  AttemptEntity,
  DeliveryEntity,
  EventEntity,
  EventPublisher,
  PendingDeliveryEntity,
  type ApiEvent,
} from '../lib/index.js';
import { EventRetention } from '../lib/events/event-retention.js';
import { type ApiClient, apiClient, ISO_MS, sleep, walkPages } from './support/api-client.js';
import { errorEnvelope, expectParameterInvalid, expectResourceMissing } from './support/api-error.js';
import { DB_KIND } from './support/database.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver } from './support/receiver.js';
import { TEST_WEBHOOKS } from './support/webhooks.js';

const API_VERSION = '2025-06-01';
const EVENT_FIELDS = ['id', 'object', 'type', 'api_version', 'livemode', 'created_at', 'data'];

type EventType = 'result.ready' | 'result.updated' | 'session.completed';

describe('events', () => {
  let host: TestHost;
  let receiver: Receiver;
  let publisher: EventPublisher;
  let account = 0;

  /** A fresh account per test, so that each test sees only its own events. */
  async function freshAccount(): Promise<{ id: string; api: ApiClient; live: ApiClient }> {
    const id = `acct_ev_${++account}`;
    const [testKey, liveKey] = await Promise.all([host.createKey(id, 'test'), host.createKey(id, 'live')]);
    return { id, api: apiClient(host, testKey), live: apiClient(host, liveKey) };
  }

  function publish(
    accountId: string,
    type: EventType = 'result.ready',
    livemode = false,
    resource: Record<string, unknown> = {},
  ): Promise<ApiEvent> {
    return publisher.publish({
      accountId,
      type,
      livemode,
      data: { id: `res_${accountId}`, object: 'result', status: 'ready', ...resource },
    });
  }

  async function listEvents(
    client: ApiClient,
    query: Record<string, string | number> = {},
  ): Promise<ApiEvent[]> {
    const res = await client.get('/v1/events', { limit: 100, ...query });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  beforeAll(async () => {
    host = await createTestHost({ module: { apiVersion: API_VERSION } });
    publisher = host.app.get(EventPublisher);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await host.close();
    await receiver.close();
  });

  describe('scope developers:manage', () => {
    it('refuses GET /v1/events and GET /v1/events/:id to a key with results:read alone', async () => {
      const { id } = await freshAccount();
      const event = await publish(id);
      const reader = apiClient(host, await host.createKey(id, 'test', ['results:read']));
      for (const res of [await reader.get('/v1/events'), await reader.get(`/v1/events/${event.id}`)]) {
        expect({ status: res.status, body: res.body }).toEqual({
          status: 403,
          body: errorEnvelope('permission_error', 'insufficient_scope'),
        });
      }
      const manager = apiClient(host, await host.createKey(id, 'test', ['developers:manage']));
      expect((await manager.get(`/v1/events/${event.id}`)).status).toBe(200);
    });
  });

  describe('GET /v1/events/:id', () => {
    it('answers exactly the documented shape, with api_version from the module options', async () => {
      const { id, api } = await freshAccount();
      const resource = { id: 'res_shape', object: 'result', status: 'ready', score: 87, tags: ['a', 'b'] };
      const event = await publisher.publish({
        accountId: id,
        type: 'result.ready',
        livemode: false,
        data: resource,
      });
      const res = await api.get(`/v1/events/${event.id}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(EVENT_FIELDS);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-z]+$/),
        object: 'event',
        type: 'result.ready',
        api_version: API_VERSION,
        livemode: false,
        created_at: expect.stringMatching(ISO_MS),
        data: { object: resource },
      });
      expect(Object.keys(res.body.data)).toEqual(['object']);
      expect(res.body).toEqual(event);
    });

    it('is byte for byte the body the webhook receiver got', async () => {
      const { id, api } = await freshAccount();
      const endpoint = await api.post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['*'] });
      expect(endpoint.status).toBe(201);
      const event = await publish(id, 'result.updated', false, { note: 'é ✓ "quoted"', nested: { n: 1.5 } });
      const received = await eventually(async () =>
        receiver.requests.find((request) => request.headers['webhook-id'] === event.id),
      );
      const res = await api.get(`/v1/events/${event.id}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(received.body);
      const [listed] = await listEvents(api);
      expect(JSON.stringify(listed)).toBe(received.body);
    });

    it('answers 404 resource_missing for an unknown id', async () => {
      const { api } = await freshAccount();
      expectResourceMissing(await api.get('/v1/events/evt_doesnotexist'));
    });
  });

  describe('GET /v1/events', () => {
    it('lists the events in the envelope, newest first, each as GET /v1/events/:id answers it', async () => {
      const { id, api } = await freshAccount();
      const published: ApiEvent[] = [];
      for (const type of ['result.ready', 'result.updated', 'session.completed'] as const) {
        // Apart in time: events of the same millisecond are ordered by id, not by publish order.
        if (published.length > 0) await sleep(3);
        published.push(await publish(id, type));
      }
      const res = await api.get('/v1/events');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        object: 'list',
        data: [...published].reverse(),
        has_more: false,
        next_cursor: null,
      });
      for (const event of res.body.data as ApiEvent[]) {
        expect(Object.keys(event)).toEqual(EVENT_FIELDS);
        expect((await api.get(`/v1/events/${event.id}`)).body).toEqual(event);
      }
    });

    it('filters by type', async () => {
      const { id, api } = await freshAccount();
      const ready1 = await publish(id, 'result.ready');
      const updated = await publish(id, 'result.updated');
      await sleep(3);
      const ready2 = await publish(id, 'result.ready');
      const completed = await publish(id, 'session.completed');
      expect((await listEvents(api, { type: 'result.ready' })).map((e) => e.id)).toEqual([
        ready2.id,
        ready1.id,
      ]);
      expect((await listEvents(api, { type: 'result.updated' })).map((e) => e.id)).toEqual([updated.id]);
      expect((await listEvents(api, { type: 'session.completed' })).map((e) => e.id)).toEqual([completed.id]);
      const pages = await walkPages<ApiEvent>(api, '/v1/events', { type: 'result.ready', limit: 1 });
      expect(pages.flatMap((page) => page.data.map((e) => e.id))).toEqual([ready2.id, ready1.id]);
    });

    it("filters by a group of types such as result.* (Stripe's wildcard)", async () => {
      const { id, api } = await freshAccount();
      const ready = await publish(id, 'result.ready');
      const updated = await publish(id, 'result.updated');
      const completed = await publish(id, 'session.completed');
      const ids = async (type: string): Promise<string[]> =>
        (await listEvents(api, { type })).map((event) => event.id).sort();
      expect(await ids('result.*')).toEqual([ready.id, updated.id].sort());
      expect(await ids('session.*')).toEqual([completed.id]);
      const pages = await walkPages<ApiEvent>(api, '/v1/events', { type: 'result.*', limit: 1 });
      expect(pages.flatMap((page) => page.data.map((e) => e.id)).sort()).toEqual(
        [ready.id, updated.id].sort(),
      );
    });

    it.each([
      ['an unknown type', 'nope'],
      ['a type that is not registered', 'result.deleted'],
      ['a group no known type is in', 'invoice.*'],
      ['a wildcard inside a type', 'result.*.ready'],
      ['a prefix that is not a whole part of the type', 'res*'],
      ['a lone wildcard', '*'],
    ])('answers 400 naming type for %s (%s) rather than an empty list', async (_name, type) => {
      const { id, api } = await freshAccount();
      await publish(id, 'result.ready');
      const res = await api.get('/v1/events', { type });
      expectParameterInvalid(res, 'type');
      expect(res.body.error.message).toContain(
        'result.ready, result.updated, webhook.test, session.completed',
      );
    });

    it('filters by created_gte (inclusive) and created_lt (exclusive)', async () => {
      const { id, api } = await freshAccount();
      const events: ApiEvent[] = [];
      for (let i = 0; i < 4; i++) {
        if (i > 0) await sleep(15);
        events.push(await publish(id, i % 2 === 0 ? 'result.ready' : 'result.updated'));
      }
      const [e0, e1, e2, e3] = events;
      const ids = async (query: Record<string, string | number>): Promise<string[]> =>
        (await listEvents(api, query)).map((event) => event.id);
      expect(await ids({ created_gte: e1.created_at })).toEqual([e3.id, e2.id, e1.id]);
      expect(await ids({ created_lt: e1.created_at })).toEqual([e0.id]);
      expect(await ids({ created_gte: e1.created_at, created_lt: e3.created_at })).toEqual([e2.id, e1.id]);
      expect(
        await ids({ created_gte: e1.created_at, created_lt: e3.created_at, type: 'result.updated' }),
      ).toEqual([e1.id]);
      expect(await ids({ created_gte: e2.created_at, created_lt: e2.created_at })).toEqual([]);
      const pages = await walkPages<ApiEvent>(api, '/v1/events', {
        created_gte: e0.created_at,
        created_lt: e3.created_at,
        limit: 2,
      });
      expect(pages.flatMap((page) => page.data.map((e) => e.id))).toEqual([e2.id, e1.id, e0.id]);
    });

    it.each([
      ['created_gte', 'yesterday'],
      ['created_lt', '2026-02-30T00:00:00Z'],
      ['limit', '0'],
      ['limit', '101'],
      ['cursor', 'not-a-cursor'],
      ['livemode', 'true'],
    ])('answers 400 naming %s for %s', async (param, value) => {
      const { api } = await freshAccount();
      expectParameterInvalid(await api.get('/v1/events', { [param]: value }), param);
    });

    it('refuses a cursor used with other filters', async () => {
      const { id, api } = await freshAccount();
      await publish(id, 'result.ready');
      await publish(id, 'result.ready');
      const first = await api.get('/v1/events', { limit: 1, type: 'result.ready' });
      expect(first.body.has_more).toBe(true);
      const res = await api.get('/v1/events', {
        limit: 1,
        type: 'result.updated',
        cursor: first.body.next_cursor,
      });
      expectParameterInvalid(res, 'cursor');
    });

    it('walks 50 concurrent publishes with limit 7: every event once, newest first, unshifted by new ones', async () => {
      const { id, api } = await freshAccount();
      const published = await Promise.all(
        Array.from({ length: 50 }, (_, i) => publish(id, 'result.ready', false, { n: i })),
      );
      const expected = new Set(published.map((event) => event.id));
      expect(expected.size).toBe(50);
      const during: ApiEvent[] = [];
      const pages = await walkPages<ApiEvent>(api, '/v1/events', { limit: 7 }, async (page) => {
        // Events created while paging are newer than every cursor: they never shift a later page.
        if (page === 0 || page === 3) {
          during.push(...(await Promise.all(Array.from({ length: 5 }, () => publish(id, 'result.updated')))));
        }
      });
      expect(pages.map((page) => page.data.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
      expect(pages[pages.length - 1]).toMatchObject({ has_more: false, next_cursor: null });
      const walked = pages.flatMap((page) => page.data);
      const ids = walked.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(expected);
      // Newest first: created_at never increases, and ids (time-ordered) strictly decrease.
      for (let i = 1; i < walked.length; i++) {
        expect(Date.parse(walked[i].created_at)).toBeLessThanOrEqual(Date.parse(walked[i - 1].created_at));
        expect(walked[i].id < walked[i - 1].id).toBe(true);
      }
      const everything = await walkPages<ApiEvent>(api, '/v1/events', { limit: 7 });
      const all = everything.flatMap((page) => page.data.map((event) => event.id));
      expect(all).toHaveLength(60);
      expect(new Set(all)).toEqual(new Set([...expected, ...during.map((event) => event.id)]));
    });
  });

  describe('a page of large events', () => {
    let large: TestHost;
    beforeAll(async () => {
      large = await createTestHost({ module: { worker: false, maxEventBytes: 1024 * 1024 } });
    });
    afterAll(() => large.close());

    it('ends before 4 Mi characters of events, and a walk still lists each event once, newest first', async () => {
      const api = apiClient(large, await large.createKey('acct_large', 'test'));
      const publisher = large.app.get(EventPublisher);
      const published: string[] = [];
      for (let n = 0; n < 6; n++) {
        const event = await publisher.publish({
          accountId: 'acct_large',
          type: 'result.ready',
          livemode: false,
          data: { id: `res_${n}`, object: 'result', transcript: 'x'.repeat(900_000) },
        });
        published.unshift(event.id);
      }
      const pages = await walkPages<ApiEvent>(api, '/v1/events', { limit: 100 });
      // About 0.9 Mi characters each: four fit in a page, the fifth would not.
      expect(pages.map((page) => page.data.length)).toEqual([4, 2]);
      expect(pages.flatMap((page) => page.data.map((event) => event.id))).toEqual(published);
      expect(pages[1].data[0].data.object).toMatchObject({ id: 'res_1', transcript: 'x'.repeat(900_000) });
    });

    /**
     * The characters of the rows the database answers to statements on the events while `during`
     * runs, as the process receives them; `afterList` runs once the list's own statement (the one
     * measuring each event's length) is answered.
     */
    /** The part of the driver's client a prepared statement runs through. */
    interface PreparingClient {
      query(
        config: { name?: string; text: string } | string,
        ...rest: unknown[]
      ): Promise<{ rows: unknown[] }>;
    }

    async function eventRowsRead<T>(
      during: () => Promise<T>,
      afterList: () => Promise<void> = async () => {},
    ): Promise<{ result: T; characters: number }> {
      const dataSource = large.app.get(DataSource);
      const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
      const wrapped = new Map<QueryRunner, QueryRunner['query']>();
      let characters = 0;
      let listed = false;
      const spy = jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((mode) => {
        const runner = createQueryRunner(mode);
        // SQLite hands out one runner for every query: it is wrapped once.
        if (wrapped.has(runner)) return runner;
        const query = runner.query.bind(runner) as (sql: string, ...rest: unknown[]) => Promise<unknown>;
        wrapped.set(runner, runner.query);
        runner.query = (async (sql: string, parameters?: unknown[], structured?: boolean) => {
          const answer = await query(sql, parameters, structured);
          if (sql.includes('interview_events')) {
            const rows = structured ? (answer as { records: unknown[] }).records : answer;
            characters += JSON.stringify(rows).length;
            if (!listed && sql.includes('LENGTH(')) {
              listed = true;
              await afterList();
            }
          }
          return answer;
        }) as QueryRunner['query'];
        // A prepared statement (PostgreSQL) goes to the driver's client itself: its rows are counted
        // there, and only its, since the runner's own queries reach the client too.
        const connect = runner.connect.bind(runner) as () => Promise<PreparingClient>;
        runner.connect = async () => {
          const client = await connect();
          return new Proxy(client, {
            get(target, property) {
              if (property !== 'query') return Reflect.get(target, property, target) as unknown;
              return async (config: { name?: string; text: string } | string, ...rest: unknown[]) => {
                const answer = await target.query(config, ...rest);
                if (typeof config === 'object' && config.name && config.text.includes('interview_events')) {
                  characters += JSON.stringify(answer.rows).length;
                }
                return answer;
              };
            },
          });
        };
        return runner;
      });
      try {
        return { result: await during(), characters };
      } finally {
        spy.mockRestore();
        for (const [runner, query] of wrapped) runner.query = query;
      }
    }

    it('reads no more than the budget and one event of event JSON from the database per page, with filters and cursors', async () => {
      const api = apiClient(large, await large.createKey('acct_large_reads', 'test'));
      const publisher = large.app.get(EventPublisher);
      const since = new Date(Date.now() - 1000).toISOString();
      const published: string[] = [];
      for (let n = 0; n < 101; n++) {
        const type = n % 10 === 9 ? 'result.updated' : 'result.ready';
        const event = await publisher.publish({
          accountId: 'acct_large_reads',
          type,
          livemode: false,
          data: { id: `res_${n}`, object: 'result', transcript: 'x'.repeat(200_000) },
        });
        if (type === 'result.ready') published.unshift(event.id);
      }
      const query = { limit: 100, type: 'result.ready', created_gte: since };
      const pages: ApiEvent[][] = [];
      let cursor: string | null = null;
      do {
        const { result: res, characters } = await eventRowsRead(() =>
          api.get('/v1/events', cursor === null ? query : { ...query, cursor }),
        );
        expect(res.status).toBe(200);
        const eventCharacters = JSON.stringify(res.body.data[0]).length;
        // 20 events of about 200,000 characters fit in 4 Mi; the list's 101 rows held 20 MB.
        expect(characters).toBeLessThan(4 * 1024 * 1024 + eventCharacters);
        expect(characters).toBeGreaterThan(JSON.stringify(res.body.data).length);
        pages.push(res.body.data);
        cursor = res.body.next_cursor;
      } while (cursor !== null);
      expect(pages.map((page) => page.length)).toEqual([20, 20, 20, 20, 11]);
      expect(pages.flat().map((event) => event.id)).toEqual(published);
    });

    it('ends by the characters a JS string counts, a character beyond U+FFFF counting two', async () => {
      const api = apiClient(large, await large.createKey('acct_large_astral', 'test'));
      const publisher = large.app.get(EventPublisher);
      for (let n = 0; n < 9; n++) {
        await publisher.publish({
          accountId: 'acct_large_astral',
          type: 'result.ready',
          livemode: false,
          data: { id: `res_${n}`, object: 'result', transcript: '\u{1F600}'.repeat(250_000) },
        });
      }
      // 500,000 characters each but 250,000 code points: eight fit in 4 Mi, where nine would by code points.
      const pages = await walkPages<ApiEvent>(api, '/v1/events', { limit: 100 });
      expect(pages.map((page) => page.data.length)).toEqual([8, 1]);
      expect(pages[1].data[0].data.object).toMatchObject({ transcript: '\u{1F600}'.repeat(250_000) });
    });

    // On PostgreSQL a page is one statement, its lengths and its events read together.
    (DB_KIND === 'sqlite' ? it : it.skip)(
      'leaves out an event deleted between reading the page’s lengths and its events',
      async () => {
        const api = apiClient(large, await large.createKey('acct_large_purged', 'test'));
        const publisher = large.app.get(EventPublisher);
        const events: ApiEvent[] = [];
        for (let n = 0; n < 3; n++) {
          events.unshift(
            await publisher.publish({
              accountId: 'acct_large_purged',
              type: 'result.ready',
              livemode: false,
              data: { id: `res_${n}`, object: 'result' },
            }),
          );
        }
        const { result: res } = await eventRowsRead(
          () => api.get('/v1/events', { limit: 2 }),
          async () => {
            await large.app.get(DataSource).getRepository(EventEntity).delete({ id: events[1].id });
          },
        );
        expect(res.status).toBe(200);
        expect(res.body.data.map((event: ApiEvent) => event.id)).toEqual([events[0].id]);
        expect(res.body.has_more).toBe(true);
        const rest = await api.get('/v1/events', { limit: 2, cursor: res.body.next_cursor });
        expect(rest.body).toMatchObject({ has_more: false, next_cursor: null });
        expect(rest.body.data.map((event: ApiEvent) => event.id)).toEqual([events[2].id]);
      },
    );
  });

  describe('account and mode isolation', () => {
    it('lists and retrieves only the key’s own account and mode (others answer 404)', async () => {
      const a = await freshAccount();
      const b = await freshAccount();
      const aTest = await publish(a.id, 'result.ready', false);
      const aLive = await publish(a.id, 'result.ready', true);
      const bTest = await publish(b.id, 'result.ready', false);

      expect((await listEvents(a.api)).map((e) => e.id)).toEqual([aTest.id]);
      expect((await listEvents(a.live)).map((e) => e.id)).toEqual([aLive.id]);
      expect((await listEvents(b.api)).map((e) => e.id)).toEqual([bTest.id]);
      expect((await listEvents(b.live)).map((e) => e.id)).toEqual([]);
      expect((await a.live.get(`/v1/events/${aLive.id}`)).body).toMatchObject({
        id: aLive.id,
        livemode: true,
      });

      expectResourceMissing(await a.live.get(`/v1/events/${aTest.id}`));
      expectResourceMissing(await a.api.get(`/v1/events/${aLive.id}`));
      expectResourceMissing(await a.api.get(`/v1/events/${bTest.id}`));
      expectResourceMissing(await b.api.get(`/v1/events/${aTest.id}`));
      expectResourceMissing(await b.live.get(`/v1/events/${aLive.id}`));
    });

    it('refuses a cursor from another account', async () => {
      const a = await freshAccount();
      const b = await freshAccount();
      await publish(a.id);
      await publish(a.id);
      await publish(b.id);
      await publish(b.id);
      const page = await a.api.get('/v1/events', { limit: 1 });
      expect(page.body.has_more).toBe(true);
      expectParameterInvalid(
        await b.api.get('/v1/events', { limit: 1, cursor: page.body.next_cursor }),
        'cursor',
      );
      expectParameterInvalid(
        await a.live.get('/v1/events', { limit: 1, cursor: page.body.next_cursor }),
        'cursor',
      );
    });
  });

  describe('retention (eventRetentionMs)', () => {
    let short: TestHost;
    let hook: Receiver;
    let failing: Receiver;

    beforeAll(async () => {
      // Retries far apart: a delivery to the failing endpoint is still pending when purged.
      short = await createTestHost({
        module: { eventRetentionMs: 1000, webhooks: { ...TEST_WEBHOOKS, retryScheduleMs: [60_000] } },
      });
      hook = await Receiver.start();
      failing = await Receiver.start((_req, _i, res) => res.writeHead(500).end('down'));
    });
    afterAll(async () => {
      await short.close();
      await hook.close();
      await failing.close();
    });

    it('hides an expired event from list and retrieve; purge() deletes it with its deliveries', async () => {
      const api = apiClient(short, await short.createKey('acct_ret', 'test'));
      const created = await api.post('/v1/webhook_endpoints', { url: hook.url, enabled_events: ['*'] });
      expect(created.status).toBe(201);
      const failingEndpoint = await api.post('/v1/webhook_endpoints', {
        url: failing.url,
        enabled_events: ['*'],
      });
      expect(failingEndpoint.status).toBe(201);
      const shortPublisher = short.app.get(EventPublisher);
      const old = await shortPublisher.publish({
        accountId: 'acct_ret',
        type: 'result.ready',
        livemode: false,
        data: { id: 'res_old', object: 'result', status: 'ready' },
      });
      await hook.waitFor(1);
      const dataSource = short.app.get(DataSource);
      const deliveries = dataSource.getRepository(DeliveryEntity);
      // One sent, one waiting for its retry in the pending deliveries' schedule.
      const oldDeliveries = await eventually(async () => {
        const rows = await deliveries.findBy({ eventId: old.id });
        const statuses = rows.map((row) => `${row.status}/${row.attempt}`).sort();
        return statuses.join() === 'pending/1,succeeded/1' ? rows : undefined;
      });
      expect(
        await dataSource
          .getRepository(AttemptEntity)
          .countBy({ deliveryId: In(oldDeliveries.map((d) => d.id)) }),
      ).toBe(2);
      const schedule = dataSource.getRepository(PendingDeliveryEntity);
      expect(await schedule.countBy({ deliveryId: In(oldDeliveries.map((d) => d.id)) })).toBe(1);
      expect((await api.get(`/v1/events/${old.id}`)).status).toBe(200);

      // Past the retention horizon, the event is gone from the API even before any purge.
      await sleep(Math.max(0, Date.parse(old.created_at) + 1200 - Date.now()));
      const fresh = await shortPublisher.publish({
        accountId: 'acct_ret',
        type: 'result.updated',
        livemode: false,
        data: { id: 'res_fresh', object: 'result', status: 'ready' },
      });
      const listed = await api.get('/v1/events');
      expect(listed.body.data.map((event: ApiEvent) => event.id)).toEqual([fresh.id]);
      expectResourceMissing(await api.get(`/v1/events/${old.id}`));
      expect(await dataSource.getRepository(EventEntity).countBy({ id: old.id })).toBe(1);

      expect(await short.app.get(EventRetention).purge()).toBe(1);
      expect(await dataSource.getRepository(EventEntity).countBy({ id: old.id })).toBe(0);
      expect(await deliveries.countBy({ eventId: old.id })).toBe(0);
      expect(
        await dataSource
          .getRepository(AttemptEntity)
          .countBy({ deliveryId: In(oldDeliveries.map((d) => d.id)) }),
      ).toBe(0);
      expect(await schedule.countBy({ deliveryId: In(oldDeliveries.map((d) => d.id)) })).toBe(0);
      // The young event and its deliveries stay.
      expect(await dataSource.getRepository(EventEntity).countBy({ id: fresh.id })).toBe(1);
      expect(await deliveries.countBy({ eventId: fresh.id })).toBe(2);
      expect((await api.get(`/v1/events/${fresh.id}`)).status).toBe(200);
    });

    it('keeps every event when the retention reaches back before 1970 (100 years)', async () => {
      const century = await createTestHost({ module: { eventRetentionMs: 100 * 365 * 24 * 3600 * 1000 } });
      try {
        const api = apiClient(century, await century.createKey('acct_ret_century', 'test'));
        const event = await century.app.get(EventPublisher).publish({
          accountId: 'acct_ret_century',
          type: 'result.ready',
          livemode: false,
          data: { id: 'res_century', object: 'result', status: 'ready' },
        });
        expect(await century.app.get(EventRetention).purge()).toBe(0);
        expect((await api.get('/v1/events')).body.data.map((e: ApiEvent) => e.id)).toEqual([event.id]);
        expect((await api.get(`/v1/events/${event.id}`)).status).toBe(200);
      } finally {
        await century.close();
      }
    });
  });
});
