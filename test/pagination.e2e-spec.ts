import request from 'supertest';
import { DataSource } from 'typeorm';
import { Paginator, parseListParams } from '../lib/index.js';
import { CursorCodec } from '../lib/pagination/cursor-codec.js';
import { expectParameterInvalid, expectResourceMissing } from './support/api-error.js';
import { CURSOR_SECRET, createTestHost, type TestHost } from './support/host-app.js';
import { SessionEntity } from './support/session.entity.js';
import { insertSessions, insertSessionStoredAs, newestFirst } from './support/sessions.js';

type Query = [string, string][];

interface Page {
  object: 'list';
  data: { id: string; object: string; status: string; created_at: string }[];
  has_more: boolean;
  next_cursor: string | null;
}

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0, 0);
/** A distinct time for row i; the odd milliseconds keep sub-second precision honest. */
const at = (i: number): Date => new Date(T0 + i * MINUTE + i * 7);
/** Twelve sessions of account A share this exact instant, between rows 15 and 16. */
const TIE = new Date(T0 + 15 * MINUTE + 30_000);
const STATUSES = ['completed', 'scheduled', 'in_progress'];

describe('GET /v1/sessions: list envelope and cursor pagination', () => {
  let host: TestHost;
  let keyA: string;
  let keyALive: string;
  let keyB: string;
  /** Account A's test-mode sessions, newest first: the list keyA must see. */
  let rowsA: SessionEntity[];
  let rowsALive: SessionEntity[];
  let rowsB: SessionEntity[];

  beforeAll(async () => {
    host = await createTestHost();
    [keyA, keyALive, keyB] = await Promise.all([
      host.createKey('acct_a', 'test', ['results:read']),
      host.createKey('acct_a', 'live', ['results:read']),
      host.createKey('acct_b', 'test', ['results:read']),
    ]);
    const distinct = Array.from({ length: 30 }, (_, i) => ({
      accountId: 'acct_a',
      livemode: false,
      createdAt: at(i),
      status: STATUSES[i % 3],
    }));
    const tied = Array.from({ length: 12 }, (_, i) => ({
      accountId: 'acct_a',
      livemode: false,
      createdAt: TIE,
      status: STATUSES[i % 3],
    }));
    // Interleaved so that insertion order says nothing about the expected order.
    rowsA = newestFirst(await insertSessions(host, [...tied.slice(0, 6), ...distinct, ...tied.slice(6)]));
    rowsALive = newestFirst(
      await insertSessions(
        host,
        [3, 9, 15, 21].map((i) => ({ accountId: 'acct_a', livemode: true, createdAt: at(i) })),
      ),
    );
    rowsB = newestFirst(
      await insertSessions(host, [
        ...[2, 8, 14].map((i) => ({ accountId: 'acct_b', livemode: false, createdAt: at(i) })),
        { accountId: 'acct_b', livemode: false, createdAt: TIE },
      ]),
    );
  });
  afterAll(() => host.close());

  const list = (key: string, query: Query = []) =>
    request(host.app.getHttpServer())
      .get(`/v1/sessions${query.length ? `?${new URLSearchParams(query)}` : ''}`)
      .set('Authorization', `Bearer ${key}`);

  const ids = (rows: readonly SessionEntity[]): string[] => rows.map((row) => row.id);

  /** Follows next_cursor until has_more is false, checking every page on the way. */
  async function walk(
    key: string,
    limit: number,
    query: Query = [],
  ): Promise<{ ids: string[]; pages: number }> {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: Query = [...query, ['limit', String(limit)]];
      if (cursor) q.push(['cursor', cursor]);
      const res = await list(key, q).expect(200);
      const page = res.body as Page;
      pages++;
      expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      if (page.has_more) {
        expect(page.data).toHaveLength(limit);
        expect(page.next_cursor).toEqual(expect.any(String));
      } else {
        expect(page.next_cursor).toBeNull();
      }
      seen.push(...page.data.map((item) => item.id));
      cursor = page.next_cursor;
      if (pages > 200) throw new Error('the walk does not end');
    } while (cursor);
    return { ids: seen, pages };
  }

  /** A real next_cursor of account A's test-mode list. */
  async function firstCursor(key = keyA, query: Query = []): Promise<string> {
    const res = await list(key, [...query, ['limit', '2']]).expect(200);
    expect(res.body.next_cursor).toEqual(expect.any(String));
    return res.body.next_cursor as string;
  }

  describe('the envelope', () => {
    it('is exactly { object, data, has_more, next_cursor }, newest first', async () => {
      const res = await list(keyA, [['limit', '5']]).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
      expect(res.body).toEqual({
        object: 'list',
        data: rowsA.slice(0, 5).map((row) => expect.objectContaining({ id: row.id, object: 'session' })),
        has_more: true,
        next_cursor: expect.stringMatching(/^[A-Za-z0-9_.-]+$/),
      });
    });

    it('lists every row newest first, ties broken by id, and ends with next_cursor null', async () => {
      const res = await list(keyA, [['limit', '100']]).expect(200);
      expect(res.body.data.map((item: { id: string }) => item.id)).toEqual(ids(rowsA));
      expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
      const times = res.body.data.map((item: { created_at: string }) => Date.parse(item.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('returns 25 items by default', async () => {
      const res = await list(keyA).expect(200);
      expect(res.body.data.map((item: { id: string }) => item.id)).toEqual(ids(rowsA.slice(0, 25)));
      expect(res.body.has_more).toBe(true);
    });

    it('answers an account without sessions with an empty list', async () => {
      const key = await host.createKey('acct_empty', 'test', ['results:read']);
      const res = await list(key).expect(200);
      expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    });
  });

  describe('walking with next_cursor', () => {
    it.each([1, 2, 6, 7, 41, 42, 100])('visits every row exactly once with limit %i', async (limit) => {
      const walked = await walk(keyA, limit);
      expect(walked.ids).toEqual(ids(rowsA));
      expect(new Set(walked.ids).size).toBe(rowsA.length);
      expect(walked.pages).toBe(Math.max(1, Math.ceil(rowsA.length / limit)));
    });

    it('walks through the twelve sessions that share one created_at, one at a time', async () => {
      const walked = await walk(keyA, 1, [
        ['created_gte', TIE.toISOString()],
        ['created_lt', new Date(TIE.getTime() + 1).toISOString()],
      ]);
      const tied = rowsA.filter((row) => row.createdAt.getTime() === TIE.getTime());
      expect(tied).toHaveLength(12);
      expect(walked.ids).toEqual(ids(tied));
    });

    it('accepts a different limit between pages (limit is not a filter)', async () => {
      const cursor = await firstCursor();
      const res = await list(keyA, [
        ['limit', '100'],
        ['cursor', cursor],
      ]).expect(200);
      expect(res.body.data.map((item: { id: string }) => item.id)).toEqual(ids(rowsA.slice(2)));
    });
  });

  describe('limit', () => {
    it.each([['0'], ['101'], ['-1'], ['1.5'], ['abc'], [''], ['1e1'], ['0x10'], [' 5'], ['5 ']])(
      'refuses limit=%j with 400 naming limit, never clamping',
      async (value) => {
        expectParameterInvalid(await list(keyA, [['limit', value]]), 'limit');
      },
    );

    it('refuses limit given twice', async () => {
      expectParameterInvalid(
        await list(keyA, [
          ['limit', '1'],
          ['limit', '2'],
        ]),
        'limit',
      );
    });

    it('accepts both ends of 1..100', async () => {
      expect((await list(keyA, [['limit', '1']]).expect(200)).body.data).toHaveLength(1);
      expect((await list(keyA, [['limit', '100']]).expect(200)).body.data).toHaveLength(rowsA.length);
    });
  });

  describe('created_gte and created_lt', () => {
    it.each([
      ['created_gte', 'yesterday'],
      ['created_gte', '2026-13-01'],
      ['created_gte', '2026-02-30'],
      ['created_gte', '2026-02-30T10:00:00Z'],
      ['created_gte', '1767600000'],
      ['created_gte', ''],
      ['created_lt', '2026-01-05T25:00:00Z'],
      ['created_lt', '2026-01-05 09:00:00'],
      ['created_lt', 'NaN'],
      // Instants in year 10000 and year -1 (SQLite would compare them as text, wrongly).
      ['created_lt', '9999-12-31T23:59:59-14:00'],
      ['created_gte', '0000-01-01T00:00:00+14:00'],
    ])('refuses %s=%j with 400 naming it', async (param, value) => {
      expectParameterInvalid(await list(keyA, [[param, value]]), param);
    });

    it('refuses a bound given twice', async () => {
      const value = at(3).toISOString();
      expectParameterInvalid(
        await list(keyA, [
          ['created_lt', value],
          ['created_lt', value],
        ]),
        'created_lt',
      );
    });

    it('keeps created_gte inclusive and created_lt exclusive', async () => {
      const from = at(5);
      const to = at(20);
      const expected = rowsA.filter((row) => row.createdAt >= from && row.createdAt < to);
      expect(expected.some((row) => row.createdAt.getTime() === from.getTime())).toBe(true);
      const res = await list(keyA, [
        ['created_gte', from.toISOString()],
        ['created_lt', to.toISOString()],
        ['limit', '100'],
      ]).expect(200);
      const listed: string[] = res.body.data.map((item: { id: string }) => item.id);
      expect(listed).toEqual(ids(expected));
      expect(listed).toContain(rowsA.find((row) => row.createdAt.getTime() === from.getTime())!.id);
      expect(listed).not.toContain(rowsA.find((row) => row.createdAt.getTime() === to.getTime())!.id);
    });

    it('takes a bound between two milliseconds as the next one, not the one before', async () => {
      // Half a millisecond after the tied batch: all of it is before the bound, none at or after.
      const between = `${TIE.toISOString().slice(0, -1)}5Z`;
      const gte = await list(keyA, [
        ['created_gte', between],
        ['limit', '100'],
      ]).expect(200);
      const lt = await list(keyA, [
        ['created_lt', between],
        ['limit', '100'],
      ]).expect(200);
      expect(gte.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(rowsA.filter((row) => row.createdAt > TIE)),
      );
      expect(lt.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(rowsA.filter((row) => row.createdAt <= TIE)),
      );
    });

    it('includes or excludes the whole batch sharing one instant', async () => {
      const gte = await list(keyA, [
        ['created_gte', TIE.toISOString()],
        ['limit', '100'],
      ]).expect(200);
      const lt = await list(keyA, [
        ['created_lt', TIE.toISOString()],
        ['limit', '100'],
      ]).expect(200);
      expect(gte.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(rowsA.filter((row) => row.createdAt >= TIE)),
      );
      expect(lt.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(rowsA.filter((row) => row.createdAt < TIE)),
      );
      expect(gte.body.data.length + lt.body.data.length).toBe(rowsA.length);
    });

    it('reads offsets and a date alone as the instants they name', async () => {
      const from = at(10);
      // The same instant written at UTC+02:00.
      const shifted = new Date(from.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const withOffset = await list(keyA, [
        ['created_gte', shifted],
        ['limit', '100'],
      ]).expect(200);
      expect(withOffset.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(rowsA.filter((row) => row.createdAt >= from)),
      );
      const nextDay = await list(keyA, [['created_gte', '2026-01-06']]).expect(200);
      expect(nextDay.body.data).toEqual([]);
      const sameDay = await list(keyA, [
        ['created_gte', '2026-01-05'],
        ['limit', '100'],
      ]).expect(200);
      expect(sameDay.body.data).toHaveLength(rowsA.length);
    });

    it('reads a time without an offset as UTC, whatever the server time zone', async () => {
      const from = at(10);
      const noOffset = from.toISOString().replace('Z', '');
      const res = await list(keyA, [
        ['created_gte', noOffset],
        ['limit', '100'],
      ]).expect(200);
      expect(res.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(rowsA.filter((row) => row.createdAt >= from)),
      );
    });

    it("compares rows stored to the whole second (SQLite's datetime default) as the instants they are", async () => {
      const key = await host.createKey('acct_seconds', 'test', ['results:read']);
      // A @CreateDateColumn's default on SQLite, datetime('now'), stores no fraction of a second;
      // TypeORM writes milliseconds. The same instant is here in both forms, among its neighbours.
      const stored = ['10:00:27', '10:00:28', '10:00:28.000', '10:00:28.500', '10:00:29'];
      const inserted: string[] = [];
      for (const time of stored) {
        inserted.push(
          await insertSessionStoredAs(
            host,
            'acct_seconds',
            new Date(`2026-01-08T${time}Z`),
            `2026-01-08 ${time}`,
          ),
        );
      }
      const listed = async (query: Query): Promise<string[]> => {
        const res = await list(key, [...query, ['limit', '100']]).expect(200);
        return res.body.data.map((item: { id: string }) => item.id);
      };
      const all = await listed([]);
      const own = (await list(key, [['limit', '100']]).expect(200)).body.data.find(
        (item: { id: string }) => item.id === inserted[1],
      ).created_at as string;
      expect(own).toBe('2026-01-08T10:00:28.000Z');
      const sameInstant = new Set(inserted.slice(1, 3));
      expect(new Set(await listed([['created_gte', own]]))).toEqual(new Set(inserted.slice(1)));
      expect(await listed([['created_lt', own]])).toEqual([inserted[0]]);
      expect(new Set(await listed([['created_lt', '2026-01-08T10:00:28.500Z']]))).toEqual(
        new Set(inserted.slice(0, 3)),
      );
      // Newest first, the two forms of one instant side by side, and a walk visits each row once.
      expect(all).toHaveLength(5);
      expect([all[0], all[1], all[4]]).toEqual([inserted[4], inserted[3], inserted[0]]);
      expect(new Set(all.slice(2, 4))).toEqual(sameInstant);
      expect((await walk(key, 1)).ids).toEqual(all);
    });

    it('pages through a window with the window kept on every page', async () => {
      const window: Query = [
        ['created_gte', at(4).toISOString()],
        ['created_lt', at(25).toISOString()],
      ];
      const walked = await walk(keyA, 4, window);
      expect(walked.ids).toEqual(
        ids(rowsA.filter((row) => row.createdAt >= at(4) && row.createdAt < at(25))),
      );
    });
  });

  describe('the status filter', () => {
    it('lists only sessions of that status, across pages', async () => {
      const completed = rowsA.filter((row) => row.status === 'completed');
      const res = await list(keyA, [
        ['status', 'completed'],
        ['limit', '100'],
      ]).expect(200);
      expect(res.body.data.map((item: { id: string }) => item.id)).toEqual(ids(completed));
      expect(res.body.data.every((item: { status: string }) => item.status === 'completed')).toBe(true);
      expect((await walk(keyA, 3, [['status', 'completed']])).ids).toEqual(ids(completed));
    });

    it('answers an unmatched status with an empty list, and refuses an empty or repeated one', async () => {
      const res = await list(keyA, [['status', 'cancelled']]).expect(200);
      expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
      expectParameterInvalid(await list(keyA, [['status', '']]), 'status');
      expectParameterInvalid(
        await list(keyA, [
          ['status', 'completed'],
          ['status', 'scheduled'],
        ]),
        'status',
      );
    });

    it('refuses an unknown query parameter, naming it', async () => {
      for (const name of ['foo', 'Status', 'created_after', 'starting_after', 'account_id']) {
        expectParameterInvalid(await list(keyA, [[name, 'x']]), name);
      }
    });
  });

  describe('a cursor that is not the next_cursor of this very list', () => {
    const codec = new CursorCodec(CURSOR_SECRET);
    const bindingA = { list: 'sessions', accountId: 'acct_a', livemode: false, filters: {} };

    const expectBadCursor = async (key: string, cursor: string, query: Query = []): Promise<void> => {
      expectParameterInvalid(await list(key, [...query, ['cursor', cursor]]), 'cursor');
    };

    it('is refused when a character is flipped, anywhere', async () => {
      const cursor = await firstCursor();
      for (const index of [0, 3, Math.floor(cursor.length / 2), cursor.length - 1]) {
        const flipped =
          cursor.slice(0, index) + (cursor[index] === 'A' ? 'B' : 'A') + cursor.slice(index + 1);
        await expectBadCursor(keyA, flipped);
      }
    });

    it('is refused when cut, extended, empty, repeated or garbage', async () => {
      const cursor = await firstCursor();
      await expectBadCursor(keyA, cursor.slice(0, -3));
      await expectBadCursor(keyA, cursor.slice(0, cursor.lastIndexOf('.')));
      await expectBadCursor(keyA, `${cursor}A`);
      await expectBadCursor(keyA, 'not-a-cursor');
      await expectBadCursor(keyA, 'c1..');
      await expectBadCursor(keyA, '');
      await expectBadCursor(keyA, 'x'.repeat(4000));
      expectParameterInvalid(
        await list(keyA, [
          ['cursor', cursor],
          ['cursor', cursor],
        ]),
        'cursor',
      );
    });

    it('is refused when it was issued for another list', async () => {
      const position = codec.decode(await firstCursor(), bindingA)!;
      expect(position).not.toBeNull();
      // Control: the same position, signed for this list, is accepted and resumes after that row.
      const same = await list(keyA, [['cursor', codec.encode(position, bindingA)]]).expect(200);
      expect(same.body.data[0].id).toBe(rowsA[2].id);
      await expectBadCursor(keyA, codec.encode(position, { ...bindingA, list: 'events' }));
      await expectBadCursor(keyA, codec.encode(position, { ...bindingA, list: 'webhook_endpoints' }));
    });

    it('is refused when signed with another secret', async () => {
      const position = codec.decode(await firstCursor(), bindingA)!;
      const foreign = new CursorCodec('another-secret-0123456789abcdefghijkl').encode(position, bindingA);
      await expectBadCursor(keyA, foreign);
    });

    it('is refused when the filters change between pages', async () => {
      const completed = await firstCursor(keyA, [['status', 'completed']]);
      await expectBadCursor(keyA, completed, [['status', 'scheduled']]);
      await expectBadCursor(keyA, completed);
      // Control: with the same filter it goes on.
      await list(keyA, [
        ['status', 'completed'],
        ['cursor', completed],
      ]).expect(200);

      const before = at(25).toISOString();
      const windowed = await firstCursor(keyA, [['created_lt', before]]);
      await expectBadCursor(keyA, windowed, [['created_lt', at(24).toISOString()]]);
      await expectBadCursor(keyA, windowed);
      await expectBadCursor(keyA, windowed, [
        ['created_lt', before],
        ['created_gte', at(1).toISOString()],
      ]);
      // The same instant written with an offset is the same filter.
      await list(keyA, [
        ['created_lt', before.replace('Z', '+00:00')],
        ['cursor', windowed],
      ]).expect(200);

      const plain = await firstCursor();
      await expectBadCursor(keyA, plain, [['status', 'completed']]);
      await expectBadCursor(keyA, plain, [['created_gte', at(1).toISOString()]]);
    });

    it('is refused for another account and for the other mode', async () => {
      const cursor = await firstCursor();
      await expectBadCursor(keyB, cursor);
      await expectBadCursor(keyALive, cursor);
      await expectBadCursor(keyA, await firstCursor(keyALive));
      await expectBadCursor(keyA, await firstCursor(keyB));
    });
  });

  describe('stability while paging', () => {
    it('neither repeats nor skips when newer sessions arrive between pages', async () => {
      const key = await host.createKey('acct_stable', 'test', ['results:read']);
      const before = newestFirst(
        await insertSessions(
          host,
          Array.from({ length: 25 }, (_, i) => ({
            accountId: 'acct_stable',
            livemode: false,
            createdAt: at(i),
          })),
        ),
      );
      const first = await list(key, [['limit', '10']]).expect(200);
      const seen: string[] = first.body.data.map((item: { id: string }) => item.id);
      const newer = await insertSessions(
        host,
        Array.from({ length: 10 }, (_, i) => ({
          accountId: 'acct_stable',
          livemode: false,
          createdAt: new Date(at(40).getTime() + i),
        })),
      );
      let cursor: string | null = first.body.next_cursor;
      while (cursor) {
        const res = await list(key, [
          ['limit', '10'],
          ['cursor', cursor],
        ]).expect(200);
        seen.push(...res.body.data.map((item: { id: string }) => item.id));
        cursor = res.body.next_cursor;
      }
      expect(seen).toEqual(ids(before));
      expect(seen.filter((id) => newer.some((row) => row.id === id))).toEqual([]);
      // A fresh walk shows the newcomers first.
      const fresh = await list(key, [['limit', '100']]).expect(200);
      expect(fresh.body.data.map((item: { id: string }) => item.id)).toEqual(
        ids(newestFirst([...before, ...newer])),
      );
    });

    it('does not shift the next page when a row already seen is deleted', async () => {
      const key = await host.createKey('acct_shrink', 'test', ['results:read']);
      const rows = newestFirst(
        await insertSessions(
          host,
          Array.from({ length: 9 }, (_, i) => ({
            accountId: 'acct_shrink',
            livemode: false,
            createdAt: at(i),
          })),
        ),
      );
      const first = await list(key, [['limit', '3']]).expect(200);
      await host.app.get(DataSource).getRepository(SessionEntity).delete({ id: rows[0].id });
      const second = await list(key, [
        ['limit', '3'],
        ['cursor', first.body.next_cursor],
      ]).expect(200);
      expect(second.body.data.map((item: { id: string }) => item.id)).toEqual(ids(rows.slice(3, 6)));
    });

    it('orders and walks sessions that differ by microseconds only', async () => {
      const key = await host.createKey('acct_micro', 'test', ['results:read']);
      const micros = ['100', '250', '251', '900', '999'];
      const base = new Date(Date.UTC(2026, 0, 7, 8, 0, 0, 123));
      const inserted: string[] = [];
      for (const micro of micros) {
        inserted.push(
          await insertSessionStoredAs(host, 'acct_micro', base, `2026-01-07 08:00:00.123${micro}`),
        );
      }
      const walked = await walk(key, 1);
      expect(walked.ids).toEqual([...inserted].reverse());
    });
  });

  describe('isolation by account and mode', () => {
    it('lists only the calling account and mode', async () => {
      expect((await walk(keyB, 2)).ids).toEqual(ids(rowsB));
      expect((await walk(keyALive, 100)).ids).toEqual(ids(rowsALive));
      const all = (await walk(keyA, 100)).ids;
      for (const row of [...rowsB, ...rowsALive]) expect(all).not.toContain(row.id);
    });

    it('walks the list of an account whose id is 200 three-byte characters', async () => {
      const account = '組'.repeat(200);
      const key = await host.createKey(account, 'test', ['results:read']);
      const rows = newestFirst(
        await insertSessions(
          host,
          [1, 2, 3].map((i) => ({ accountId: account, livemode: false, createdAt: at(i) })),
        ),
      );
      expect((await walk(key, 1)).ids).toEqual(ids(rows));
    });

    it("answers 404 resource_missing for another account's or mode's session, as if it did not exist", async () => {
      const get = (key: string, id: string) =>
        request(host.app.getHttpServer()).get(`/v1/sessions/${id}`).set('Authorization', `Bearer ${key}`);
      await get(keyA, rowsA[0].id).expect(200);
      const missing = await get(keyA, 'ses_doesnotexist');
      expectResourceMissing(missing);
      for (const [key, id] of [
        [keyB, rowsA[0].id],
        [keyALive, rowsA[0].id],
        [keyA, rowsALive[0].id],
        [keyA, rowsB[0].id],
      ]) {
        const res = await get(key, id);
        expectResourceMissing(res);
        expect(res.body.error.message.replace(id, 'ID')).toBe(
          missing.body.error.message.replace('ses_doesnotexist', 'ID'),
        );
      }
    });
  });

  describe('the exported Paginator, in a host controller', () => {
    const sessions = () =>
      host.app.get(DataSource).getRepository(SessionEntity).createQueryBuilder('session');
    const page = (query: ReturnType<typeof sessions>) =>
      host.app.get(Paginator).page(
        {
          list: 'host_sessions',
          query,
          params: parseListParams({ limit: '5' }),
          scope: { accountId: 'acct_a', livemode: false },
        },
        (row) => row.id,
      );

    it('pages a query of the entity alone (the control)', async () => {
      expect(await page(sessions())).toMatchObject({ data: ids(rowsA.slice(0, 5)), has_more: true });
    });

    /** Every page of a host query, through next_cursor, as the host's own controller would. */
    const walkQuery = async (query: () => ReturnType<typeof sessions>): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const params = parseListParams(cursor ? { limit: '4', cursor } : { limit: '4' });
        const listed = await host.app.get(Paginator).page(
          {
            list: 'host_sessions',
            query: query(),
            params,
            scope: { accountId: 'acct_a', livemode: false },
          },
          (row) => row.id as string,
        );
        seen.push(...listed.data);
        cursor = listed.next_cursor;
        if (seen.length > 200) throw new Error('the walk does not end');
      } while (cursor);
      return seen;
    };

    it.each([
      [
        'an OR inside where',
        () => sessions().where("session.status = 'completed' OR session.status = 'scheduled'"),
      ],
      [
        'where then orWhere',
        () =>
          sessions()
            .where('session.status = :first', { first: 'completed' })
            .orWhere('session.status = :second', { second: 'scheduled' }),
      ],
    ])('keeps a host query with %s to the account and mode, each row once', async (_, query) => {
      const expected = rowsA.filter((row) => row.status === 'completed' || row.status === 'scheduled');
      expect(await walkQuery(query)).toEqual(ids(expected));
    });

    it('refuses a query with a join that can repeat a row, naming the join', async () => {
      const joined = sessions().leftJoin(SessionEntity, 'same_status', 'same_status.status = session.status');
      await expect(page(joined)).rejects.toThrow(/joined with "same_status"/);
    });
  });

  describe('GET /v1/sessions/:id', () => {
    it('answers the session in snake_case with ISO timestamps, as in the list', async () => {
      const row = rowsA[3];
      const res = await request(host.app.getHttpServer())
        .get(`/v1/sessions/${row.id}`)
        .set('Authorization', `Bearer ${keyA}`)
        .expect(200);
      expect(res.body).toEqual({
        id: row.id,
        object: 'session',
        account_id: 'acct_a',
        livemode: false,
        status: row.status,
        candidate_name: row.candidateName,
        created_at: row.createdAt.toISOString(),
      });
      expect(res.body.id).toMatch(/^ses_[0-9a-z]{26}$/);
      expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const listed = await list(keyA, [['limit', '4']]).expect(200);
      expect(listed.body.data[3]).toEqual(res.body);
    });

    it('needs results:read', async () => {
      const key = await host.createKey('acct_a', 'test', ['developers:manage']);
      const res = await request(host.app.getHttpServer())
        .get(`/v1/sessions/${rowsA[0].id}`)
        .set('Authorization', `Bearer ${key}`)
        .expect(403);
      expect(res.body.error.code).toBe('insufficient_scope');
    });
  });
});
