import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { type ApiEvent, type DeliveryView, EventEntity } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver } from './support/receiver.js';
import { startTypeScriptChild } from './support/typescript-child.js';
import { createEndpoint } from './support/webhooks.js';

const ACCOUNT = 'acct_zones';

/** A host process: its zone, and the URL it listens on. */
interface HostProcess {
  zone: string;
  url: string;
}

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * The two other host processes: west of UTC, on the server's TimeZone for its PostgreSQL
 * connections, and the one delivery worker; east of UTC, with its connections on its own zone.
 */
const CHILDREN = [
  { zone: 'America/New_York', worker: true, session: [] },
  { zone: 'Asia/Kolkata', worker: false, session: ['Asia/Kolkata'] },
] as const;

/** Newest first, ties by id: the order of every list. */
function newestFirst(events: readonly ApiEvent[]): string[] {
  return [...events]
    .sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
    )
    .map((event) => event.id);
}

describe('host processes in different time zones on one database', () => {
  let host: TestHost;
  let receiver: Receiver;
  let key: string;
  const children: ChildProcess[] = [];
  let west: HostProcess;
  let east: HostProcess;
  let here: HostProcess;

  beforeAll(async () => {
    host = await createTestHost({ module: { worker: false } });
    receiver = await Receiver.start();
    key = await host.createKey(ACCOUNT, 'test');
    await createEndpoint(apiClient(host, key), receiver.url);
    await host.app.listen(0, '127.0.0.1');
    here = { zone: 'this process', url: await host.app.getUrl() };
    [west, east] = await Promise.all(
      CHILDREN.map(async ({ zone, worker, session }) => {
        const { child, message } = await startTypeScriptChild<{ url: string }>(
          './events-process.ts',
          [host.db.kind, host.db.name, String(worker), ...session],
          { ...process.env, TZ: zone },
        );
        children.push(child);
        return { zone, url: message.url };
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(
      children.map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        return exited;
      }),
    );
    await receiver?.close();
    await host?.close();
  });

  async function publishIn(at: HostProcess, index: number): Promise<ApiEvent> {
    const res = await request(at.url)
      .post('/host/events')
      .send({
        accountId: ACCOUNT,
        type: 'result.ready',
        livemode: false,
        data: { id: `res_${index}`, object: 'result', status: 'ready' },
      })
      .expect(201);
    return res.body as ApiEvent;
  }

  async function get<T>(
    at: HostProcess,
    path: string,
    query: Record<string, string | number> = {},
  ): Promise<T> {
    const res = await request(at.url).get(path).query(query).set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    return res.body as T;
  }

  const listedIds = async (at: HostProcess, query: Record<string, string | number>): Promise<string[]> =>
    (await get<Page<ApiEvent>>(at, '/v1/events', { limit: 100, ...query })).data.map((event) => event.id);

  it('stores, filters, orders and pages the events of both as the instants their JSON says, to the millisecond', async () => {
    // Each publishes several at once, so that some share a millisecond or are one apart.
    const events = await Promise.all(
      [west, east].flatMap((at, side) => [0, 1, 2, 3, 4, 5].map((n) => publishIn(at, side * 6 + n))),
    );
    const newest = newestFirst(events);
    const createdAt = new Map(events.map((event) => [event.id, event.created_at]));

    // The column holds the instant the event's JSON carries.
    const stored = await host.app
      .get(DataSource)
      .getRepository(EventEntity)
      .find({ where: { accountId: ACCOUNT } });
    expect(new Map(stored.map((row) => [row.id, row.createdAt.toISOString()]))).toEqual(createdAt);

    for (const at of [west, east, here]) {
      expect({ zone: at.zone, ids: await listedIds(at, {}) }).toEqual({ zone: at.zone, ids: newest });
      for (const event of events) {
        const bound = event.created_at;
        const oneAfter = new Date(Date.parse(bound) + 1).toISOString();
        expect({
          zone: at.zone,
          created_gte: bound,
          ids: await listedIds(at, { created_gte: bound }),
        }).toEqual({
          zone: at.zone,
          created_gte: bound,
          ids: newest.filter((id) => createdAt.get(id)! >= bound),
        });
        expect({ zone: at.zone, created_lt: bound, ids: await listedIds(at, { created_lt: bound }) }).toEqual(
          {
            zone: at.zone,
            created_lt: bound,
            ids: newest.filter((id) => createdAt.get(id)! < bound),
          },
        );
        expect(await listedIds(at, { created_lt: oneAfter })).toContain(event.id);
      }
    }

    // A cursor one process made pages on in the next, whichever zone each is in.
    const walked: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page <= newest.length; page++) {
      const at = [west, east, here][page % 3];
      const body: Page<ApiEvent> = await get(
        at,
        '/v1/events',
        cursor === null ? { limit: 1 } : { limit: 1, cursor },
      );
      walked.push(...body.data.map((event) => event.id));
      if (!body.has_more) break;
      cursor = body.next_cursor;
    }
    expect(walked).toEqual(newest);
  });

  it("delivers the events of both, each delivery created at its event's instant and recorded after it", async () => {
    const events = await Promise.all([publishIn(west, 100), publishIn(east, 101)]);
    await eventually(async () =>
      events.every((event) => receiver.requests.some((req) => req.headers['webhook-id'] === event.id)),
    );
    const [endpoint] = (await get<Page<{ id: string }>>(here, '/v1/webhook_endpoints')).data;
    const deliveries = `/v1/webhook_endpoints/${endpoint.id}/deliveries`;
    for (const event of events) {
      const { data } = await get<Page<DeliveryView>>(here, deliveries, { event_id: event.id });
      expect(data).toEqual([expect.objectContaining({ status: 'succeeded', created_at: event.created_at })]);
      const { attempts, updated_at } = await get<DeliveryView>(here, `${deliveries}/${data[0].id}`);
      const readAt = new Date().toISOString();
      // Recorded by the worker west of UTC, at an instant between the event and now.
      expect(attempts).toHaveLength(1);
      for (const recorded of [updated_at, attempts![0].created_at]) {
        expect(recorded >= event.created_at && recorded <= readAt).toBe(true);
      }
    }
  });
});
