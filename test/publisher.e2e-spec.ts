import { DataSource } from 'typeorm';
import {
  DeliveryEntity,
  EventEntity,
  EventPublisher,
  ParameterInvalidError,
  type ApiEvent,
  type PublishEventInput,
} from '../lib/index.js';
import { type ApiClient, apiClient, sleep } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver } from './support/receiver.js';

/** Longer than the sweep interval (1 s) plus a sweep: a delivery that could be sent has been. */
const QUIET_MS = 2500;

describe('EventPublisher.publish', () => {
  let host: TestHost;
  let dataSource: DataSource;
  let publisher: EventPublisher;
  let account = 0;

  async function freshAccount(): Promise<{ id: string; api: ApiClient; live: ApiClient }> {
    const id = `acct_pub_${++account}`;
    const [testKey, liveKey] = await Promise.all([host.createKey(id, 'test'), host.createKey(id, 'live')]);
    return { id, api: apiClient(host, testKey), live: apiClient(host, liveKey) };
  }

  async function createEndpoint(client: ApiClient, url: string, enabledEvents: string[]): Promise<string> {
    const res = await client.post('/v1/webhook_endpoints', { url, enabled_events: enabledEvents });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  function input(accountId: string, type = 'result.ready', livemode = false): PublishEventInput {
    return { accountId, type, livemode, data: { id: `res_${accountId}`, object: 'result', status: 'ready' } };
  }

  async function deliveryCounts(eventId: string): Promise<Record<string, number>> {
    const rows = await dataSource.getRepository(DeliveryEntity).findBy({ eventId });
    const counts: Record<string, number> = {};
    for (const row of rows) counts[row.endpointId] = (counts[row.endpointId] ?? 0) + 1;
    return counts;
  }

  async function rowCounts(): Promise<{ events: number; deliveries: number }> {
    return {
      events: await dataSource.getRepository(EventEntity).count(),
      deliveries: await dataSource.getRepository(DeliveryEntity).count(),
    };
  }

  beforeAll(async () => {
    host = await createTestHost();
    dataSource = host.app.get(DataSource);
    publisher = host.app.get(EventPublisher);
  });
  afterAll(() => host.close());

  describe('fan-out', () => {
    let receiver: Receiver;
    let accountId: string;
    let endpoints: Record<string, string>;

    beforeAll(async () => {
      receiver = await Receiver.start();
      const a = await freshAccount();
      const b = await freshAccount();
      accountId = a.id;
      const url = (name: string): string => `${receiver.url}/${name}`;
      endpoints = {
        ready: await createEndpoint(a.api, url('ready'), ['result.ready']),
        all: await createEndpoint(a.api, url('all'), ['*']),
        updated: await createEndpoint(a.api, url('updated'), ['result.updated']),
        readyAndSession: await createEndpoint(a.api, url('readyAndSession'), [
          'result.ready',
          'session.completed',
        ]),
        disabled: await createEndpoint(a.api, url('disabled'), ['*']),
        live: await createEndpoint(a.live, url('live'), ['*']),
        otherAccount: await createEndpoint(b.api, url('otherAccount'), ['*']),
      };
      const disabled = await a.api.patch(`/v1/webhook_endpoints/${endpoints.disabled}`, { disabled: true });
      expect(disabled.body.status).toBe('disabled');
    });
    afterAll(() => receiver.close());

    /** The paths that received `eventId`, once each delivery has been sent. */
    async function receivedBy(eventId: string, count: number): Promise<string[]> {
      const requests = await eventually(async () => {
        const matching = receiver.requests.filter((request) => request.headers['webhook-id'] === eventId);
        return matching.length >= count ? matching : undefined;
      });
      return requests.map((request) => request.path.split('/').pop()!).sort();
    }

    it('creates one pending delivery per enabled endpoint of the account and mode that takes the type', async () => {
      const event = await publisher.publish(input(accountId, 'result.ready'));
      expect(await deliveryCounts(event.id)).toEqual({
        [endpoints.ready]: 1,
        [endpoints.all]: 1,
        [endpoints.readyAndSession]: 1,
      });
      expect(await receivedBy(event.id, 3)).toEqual(['all', 'ready', 'readyAndSession']);
    });

    it('matches "*" and the exact types only', async () => {
      const event = await publisher.publish(input(accountId, 'result.updated'));
      expect(await deliveryCounts(event.id)).toEqual({ [endpoints.all]: 1, [endpoints.updated]: 1 });
      expect(await receivedBy(event.id, 2)).toEqual(['all', 'updated']);
    });

    it('accepts host event types from the eventTypes option', async () => {
      const event = await publisher.publish(input(accountId, 'session.completed'));
      expect(event.type).toBe('session.completed');
      expect(await deliveryCounts(event.id)).toEqual({ [endpoints.all]: 1, [endpoints.readyAndSession]: 1 });
      expect(await receivedBy(event.id, 2)).toEqual(['all', 'readyAndSession']);
    });

    it('sends live events to live endpoints only', async () => {
      const event = await publisher.publish(input(accountId, 'result.ready', true));
      expect(event.livemode).toBe(true);
      expect(await deliveryCounts(event.id)).toEqual({ [endpoints.live]: 1 });
      expect(await receivedBy(event.id, 1)).toEqual(['live']);
    });

    it('skips disabled endpoints, the other mode and other accounts', async () => {
      const events = await Promise.all(
        ['result.ready', 'result.updated', 'session.completed'].map((type) =>
          publisher.publish(input(accountId, type)),
        ),
      );
      const rows = await dataSource.getRepository(DeliveryEntity).find();
      const forThese = rows.filter((row) => events.some((event) => event.id === row.eventId));
      expect(forThese).toHaveLength(7);
      for (const skipped of [endpoints.disabled, endpoints.live, endpoints.otherAccount]) {
        expect(forThese.filter((row) => row.endpointId === skipped)).toEqual([]);
      }
      await sleep(500);
      const paths = receiver.requests.map((request) => request.path.split('/').pop());
      expect(paths).not.toContain('disabled');
      expect(paths).not.toContain('otherAccount');
    });

    it('stores an event even when no endpoint takes it', async () => {
      const { id } = await freshAccount();
      const event = await publisher.publish(input(id));
      expect(await deliveryCounts(event.id)).toEqual({});
      expect(await dataSource.getRepository(EventEntity).countBy({ id: event.id })).toBe(1);
    });
  });

  describe('many at once', () => {
    it('stores 1,000 events published concurrently, each with its delivery (SQLite has one connection for all)', async () => {
      const { id, api } = await freshAccount();
      const hook = await Receiver.start();
      try {
        const endpoint = await createEndpoint(api, hook.url, ['*']);
        const events = await Promise.all(
          Array.from({ length: 1_000 }, (_, i) =>
            publisher.publish({ ...input(id), data: { id: `res_many_${i}`, object: 'result' } }),
          ),
        );
        expect(new Set(events.map((event) => event.id)).size).toBe(1_000);
        const stored = await dataSource.getRepository(DeliveryEntity).findBy({ endpointId: endpoint });
        expect(new Set(stored.map((delivery) => delivery.eventId))).toEqual(new Set(events.map((e) => e.id)));
        await hook.waitFor(1_000, 30_000);
      } finally {
        await hook.close();
      }
    });
  });

  describe('what it answers', () => {
    it('answers the stored event exactly as GET /v1/events/:id returns it', async () => {
      const { id, api } = await freshAccount();
      const completedAt = new Date('2026-03-04T05:06:07.089Z');
      const data = {
        id: 'res_dates',
        object: 'result',
        status: 'ready',
        completed_at: completedAt,
        reviewer: undefined,
        scores: [1, 2],
      };
      const event = await publisher.publish({ accountId: id, type: 'result.ready', livemode: false, data });
      const res = await api.get(`/v1/events/${event.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data.object).toEqual({
        id: 'res_dates',
        object: 'result',
        status: 'ready',
        completed_at: '2026-03-04T05:06:07.089Z',
        scores: [1, 2],
      });
      expect(event).toStrictEqual(res.body);
      // The host's object is a snapshot: changing it later changes neither the answer nor the event.
      data.status = 'changed';
      data.scores.push(3);
      expect(event.data.object).toMatchObject({ status: 'ready', scores: [1, 2] });
      expect((await api.get(`/v1/events/${event.id}`)).body).toEqual(res.body);
    });

    it('stores any text exactly when events are published together', async () => {
      const { id, api } = await freshAccount();
      // Quotes, backslashes, braces, commas and NULL: what a batched write must not mangle.
      const notes = ['NULL', '{"a":"b\\"c"}, {}', 'C:\\path\\ "x" \'y\'', 'line\nbreak\ttab €😀', ''];
      const events = await Promise.all(
        notes.map((note, index) =>
          publisher.publish({
            accountId: id,
            type: 'result.ready',
            livemode: false,
            data: { id: `res_text_${index}`, object: 'result', note },
          }),
        ),
      );
      for (const [index, event] of events.entries()) {
        const stored = await api.get(`/v1/events/${event.id}`);
        expect(stored.body).toStrictEqual(event);
        expect(stored.body.data.object.note).toBe(notes[index]);
      }
    });
  });

  describe('invalid input', () => {
    const base = (): PublishEventInput => input('acct_pub_invalid');
    const cases: [string, () => unknown, string][] = [
      ['an unknown type', () => ({ ...base(), type: 'result.deleted' }), 'type'],
      ['webhook.test (the module sends those itself)', () => ({ ...base(), type: 'webhook.test' }), 'type'],
      ['"*" as a type', () => ({ ...base(), type: '*' }), 'type'],
      ['a missing type', () => ({ ...base(), type: undefined }), 'type'],
      ['data without id', () => ({ ...base(), data: { object: 'result' } }), 'data'],
      ['data without object', () => ({ ...base(), data: { id: 'res_1' } }), 'data'],
      ['data with a numeric id', () => ({ ...base(), data: { id: 1, object: 'result' } }), 'data'],
      ['data that is null', () => ({ ...base(), data: null }), 'data'],
      ['data that is an array', () => ({ ...base(), data: [{ id: 'res_1', object: 'result' }] }), 'data'],
      ['livemode as a string', () => ({ ...base(), livemode: 'false' }), 'livemode'],
      ['livemode missing', () => ({ ...base(), livemode: undefined }), 'livemode'],
      ['an empty accountId', () => ({ ...base(), accountId: '' }), 'accountId'],
    ];

    it.each(cases)(
      'rejects %s with a typed parameter_invalid error and writes nothing',
      async (_name, make, param) => {
        const before = await rowCounts();
        const attempt = publisher.publish(make() as PublishEventInput);
        await expect(attempt).rejects.toBeInstanceOf(ParameterInvalidError);
        await expect(attempt).rejects.toMatchObject({ status: 400, code: 'parameter_invalid', param });
        expect(await rowCounts()).toEqual(before);
      },
    );

    it('says webhook.test is reserved to the test route, not that it is unknown', async () => {
      await expect(publisher.publish(input('acct_pub_invalid', 'webhook.test'))).rejects.toMatchObject({
        param: 'type',
        message:
          'webhook.test is reserved: the module sends it only for POST /v1/webhook_endpoints/{id}/test.',
      });
    });

    it('writes nothing for a rejected event even when endpoints would take it', async () => {
      const { id, api } = await freshAccount();
      await createEndpoint(api, 'http://127.0.0.1:9/never', ['*']);
      const before = await rowCounts();
      await expect(
        publisher.publish({ ...input(id), data: { id: 'res_x' } as PublishEventInput['data'] }),
      ).rejects.toMatchObject({ code: 'parameter_invalid', param: 'data' });
      await expect(publisher.publish(input(id, 'webhook.test'))).rejects.toMatchObject({
        code: 'parameter_invalid',
        param: 'type',
      });
      expect(await rowCounts()).toEqual(before);
    });
  });

  describe('inside a host transaction (the outbox)', () => {
    let receiver: Receiver;
    let accountId: string;
    let api: ApiClient;

    beforeAll(async () => {
      receiver = await Receiver.start();
      ({ id: accountId, api } = await freshAccount());
      await createEndpoint(api, receiver.url, ['*']);
    });
    afterAll(() => receiver.close());

    /** Every request the receiver got for this event. */
    const sent = (eventId: string) =>
      receiver.requests.filter((request) => request.headers['webhook-id'] === eventId);

    it('stores and sends nothing when the host rolls back', async () => {
      const before = await rowCounts();
      let event: ApiEvent | undefined;
      await expect(
        dataSource.transaction(async (manager) => {
          event = await publisher.publish(input(accountId), { manager });
          // Inside the transaction the rows exist (the host's own reads see them) ...
          expect(await manager.getRepository(EventEntity).countBy({ id: event.id })).toBe(1);
          expect(await manager.getRepository(DeliveryEntity).countBy({ eventId: event.id })).toBe(1);
          await sleep(300);
          // ... but nothing was sent before the host decided.
          expect(sent(event.id)).toEqual([]);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(event).toBeDefined();
      expect(await dataSource.getRepository(EventEntity).countBy({ id: event!.id })).toBe(0);
      expect(await dataSource.getRepository(DeliveryEntity).countBy({ eventId: event!.id })).toBe(0);
      expect(await rowCounts()).toEqual(before);
      expect((await api.get(`/v1/events/${event!.id}`)).status).toBe(404);
      await sleep(QUIET_MS);
      expect(sent(event!.id)).toEqual([]);
    });

    it('stores and sends the event once the host commits, not before', async () => {
      let event: ApiEvent | undefined;
      await dataSource.transaction(async (manager) => {
        event = await publisher.publish(input(accountId), { manager });
        await sleep(300);
        expect(sent(event.id)).toEqual([]);
        // Not visible outside the host's transaction (PostgreSQL; SQLite has only the one connection).
        if (host.db.kind === 'postgres') {
          expect(await dataSource.getRepository(EventEntity).countBy({ id: event.id })).toBe(0);
        }
      });
      const [request] = await eventually(async () =>
        sent(event!.id).length > 0 ? sent(event!.id) : undefined,
      );
      expect(JSON.parse(request.body)).toEqual(event);
      expect((await api.get(`/v1/events/${event!.id}`)).body).toEqual(event);
      const delivery = await eventually(async () => {
        const [row] = await dataSource.getRepository(DeliveryEntity).findBy({ eventId: event!.id });
        return row?.status === 'succeeded' ? row : undefined;
      });
      expect(delivery.attempt).toBe(1);
      await sleep(QUIET_MS);
      expect(sent(event!.id)).toHaveLength(1);
    });

    it('waits for the outermost commit when the host also runs a nested transaction', async () => {
      let event: ApiEvent | undefined;
      await expect(
        dataSource.transaction(async (manager) => {
          event = await publisher.publish(input(accountId), { manager });
          // A savepoint released is not a commit: the event must still wait for the host.
          await manager.transaction(async (nested) => {
            await nested.getRepository(EventEntity).countBy({ id: event!.id });
          });
          await sleep(300);
          expect(sent(event.id)).toEqual([]);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(await dataSource.getRepository(EventEntity).countBy({ id: event!.id })).toBe(0);
      await sleep(QUIET_MS);
      expect(sent(event!.id)).toEqual([]);
    });

    it('never sends an event that is not stored, when other publishes run during a host transaction', async () => {
      let inHost: ApiEvent | undefined;
      let outside: ApiEvent | undefined;
      await expect(
        dataSource.transaction(async (manager) => {
          inHost = await publisher.publish(input(accountId, 'result.ready'), { manager });
          // A publish in no transaction, made while the host's is open (another request, say).
          outside = await publisher.publish(input(accountId, 'result.updated'));
          await sleep(300);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      await sleep(QUIET_MS);
      expect(await dataSource.getRepository(EventEntity).countBy({ id: inHost!.id })).toBe(0);
      expect(sent(inHost!.id)).toEqual([]);
      // PostgreSQL commits it on its own connection; TypeORM's single SQLite connection makes it a
      // savepoint of the host's transaction, rolled back with it. Either way: sent if and only if stored.
      const stored = await dataSource.getRepository(EventEntity).countBy({ id: outside!.id });
      expect(sent(outside!.id)).toHaveLength(stored);
      if (host.db.kind === 'postgres') expect(stored).toBe(1);
    });

    it('drops only the events of a nested transaction that rolls back', async () => {
      let kept: ApiEvent | undefined;
      let dropped: ApiEvent | undefined;
      await dataSource.transaction(async (manager) => {
        kept = await publisher.publish(input(accountId, 'result.ready'), { manager });
        await expect(
          manager.transaction(async (nested) => {
            dropped = await publisher.publish(input(accountId, 'result.updated'), { manager: nested });
            throw new Error('nested rollback');
          }),
        ).rejects.toThrow('nested rollback');
      });
      expect(await dataSource.getRepository(EventEntity).countBy({ id: dropped!.id })).toBe(0);
      expect(await dataSource.getRepository(EventEntity).countBy({ id: kept!.id })).toBe(1);
      await eventually(async () => sent(kept!.id).length === 1);
      await sleep(QUIET_MS);
      expect(sent(kept!.id)).toHaveLength(1);
      expect(sent(dropped!.id)).toEqual([]);
    });
  });
});

describe('the size of an event (maxEventBytes)', () => {
  const MAX = 2_000;
  let host: TestHost;
  let publisher: EventPublisher;

  /** A result with a `note`, to make its event as long as a test needs. */
  const sized = (accountId: string, note: string): PublishEventInput => ({
    accountId,
    type: 'result.ready',
    livemode: false,
    data: { id: 'res_sized', object: 'result', note },
  });

  beforeAll(async () => {
    host = await createTestHost({ module: { worker: false, maxEventBytes: MAX } });
    publisher = host.app.get(EventPublisher);
  });
  afterAll(() => host.close());

  it('takes an event of exactly the limit and refuses one byte more, writing nothing', async () => {
    const empty = Buffer.byteLength(JSON.stringify(await publisher.publish(sized('acct_size', ''))));
    const atLimit = await publisher.publish(sized('acct_size', 'x'.repeat(MAX - empty)));
    expect(Buffer.byteLength(JSON.stringify(atLimit))).toBe(MAX);

    const events = host.app.get(DataSource).getRepository(EventEntity);
    const before = await events.count();
    // Counted in bytes: one two-byte character over a note that would fit in characters.
    const attempt = publisher.publish(sized('acct_size', `${'x'.repeat(MAX - empty - 1)}é`));
    await expect(attempt).rejects.toBeInstanceOf(ParameterInvalidError);
    await expect(attempt).rejects.toMatchObject({
      param: 'data',
      message: expect.stringContaining(`${MAX + 1} bytes`),
    });
    expect(await events.count()).toBe(before);
  });
});
