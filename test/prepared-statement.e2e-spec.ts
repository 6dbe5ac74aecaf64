import { DataSource, type Logger } from 'typeorm';
import { queryPrepared } from '../lib/database/prepared-statement.js';
import { BinaryArray } from '../lib/database/binary-array.js';
import { TestDatabase } from './support/database.js';
import { startTypeScriptChild } from './support/typescript-child.js';

/** PostgreSQL only, whichever database the suite runs on: SQLite has no prepared statements to name. */
describe('queryPrepared (PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const logged: string[] = [];
  const failed: { error: string; query: string }[] = [];

  beforeAll(async () => {
    database = await TestDatabase.create('postgres');
    const logger: Logger = {
      logQuery: (query) => void logged.push(query),
      logQueryError: (error, query) =>
        void failed.push({ error: error instanceof Error ? error.message : error, query }),
      logQuerySlow: () => undefined,
      logSchemaBuild: () => undefined,
      logMigration: () => undefined,
      log: () => undefined,
    };
    dataSource = new DataSource({ ...database.options(), logging: ['query'], logger });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE items (id text PRIMARY KEY, body text NOT NULL)');
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const insert =
    'INSERT INTO items (id, body) SELECT * FROM unnest($1::text[], $2::text[]) RETURNING id, body';

  it('answers the rows, binds values exactly, and logs the statement through the host logger', async () => {
    const bodies = ['plain', `quote " and backslash \\ and {braces}, comma`, 'NULL', 'line\nbreak ✓'];
    const rows = await queryPrepared<{ id: string; body: string }>(dataSource.manager, insert, [
      bodies.map((_, i) => `item_${i}`),
      bodies,
    ]);
    expect(rows).toEqual(bodies.map((body, i) => ({ id: `item_${i}`, body })));
    expect(logged).toContain(insert);
  });

  it('logs a failed statement through the host logger, and throws its error', async () => {
    const duplicate = [['item_0'], ['again']];
    await expect(queryPrepared(dataSource.manager, insert, duplicate)).rejects.toThrow(/duplicate key/);
    expect(failed).toEqual([{ error: expect.stringMatching(/duplicate key/), query: insert }]);
  });

  it('prepares a statement once per connection and runs it again by name, in the caller’s transaction', async () => {
    const select = 'SELECT count(*)::int AS n FROM items WHERE id = ANY($1::text[])';
    const seen = await dataSource.transaction(async (manager) => {
      const first = await queryPrepared<{ n: number }>(manager, select, [['item_0', 'item_1']]);
      const second = await queryPrepared<{ n: number }>(manager, select, [['item_2']]);
      const prepared: { name: string; statement: string }[] = await manager.query(
        'SELECT name, statement FROM pg_prepared_statements',
      );
      return { first, second, prepared };
    });
    expect(seen.first).toEqual([{ n: 2 }]);
    expect(seen.second).toEqual([{ n: 1 }]);
    const named = seen.prepared.filter((row) => row.statement === select);
    expect(named).toHaveLength(1);
    expect(named[0].name).toMatch(/^interview_api_[0-9a-f]{24}$/);
  });

  it('rolls back with the caller’s transaction', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await queryPrepared(manager, insert, [['rolled_back'], ['x']]);
        throw new Error('host failure');
      }),
    ).rejects.toThrow('host failure');
    const rows: unknown[] = await dataSource.query(`SELECT 1 FROM items WHERE id = 'rolled_back'`);
    expect(rows).toHaveLength(0);
  });

  it('binds rows as binary arrays, every value read back exactly and every Date as node-postgres binds it', async () => {
    const lease = new Date('2026-11-22T10:11:12.345Z');
    const other = new Date('2026-01-02T03:04:05.006Z');
    const texts = [`quote " and backslash \\ and {braces}, comma`, 'NULL', 'line\nbreak ✓ 🎉', ''];
    const rows: unknown[][] = [
      ['a', lease, texts[0], -2147483648, true],
      ['b', lease, texts[1], 2147483647, false],
      ['c', other, texts[2], 0, null],
      ['d', null, texts[3], null, true],
      ['e', lease, null, 7, false],
    ];
    const types = ['text', 'timestamptz', 'text', 'integer', 'boolean'] as const;
    const params = types.map(
      (type, i) =>
        new BinaryArray(
          type,
          rows.map((row) => row[i]),
        ),
    );
    type Row = { id: string; at: Date | null; body: string | null; n: number | null; flag: boolean | null };
    const read = async (): Promise<{ rows: Row[]; lease: Date; other: Date }> => {
      const rows: Row[] = await dataSource.query(
        `SELECT id, at, body, n, flag
         FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::integer[], $5::boolean[]) AS v(id, at, body, n, flag)
         ORDER BY id`,
        params,
      );
      const [direct]: { lease: Date; other: Date }[] = await dataSource.query(
        'SELECT $1::timestamptz AS lease, $2::timestamptz AS other',
        [lease, other],
      );
      return { rows, ...direct };
    };
    const utc = await read();
    expect(utc.rows).toEqual([
      { id: 'a', at: utc.lease, body: texts[0], n: -2147483648, flag: true },
      { id: 'b', at: utc.lease, body: texts[1], n: 2147483647, flag: false },
      { id: 'c', at: utc.other, body: texts[2], n: 0, flag: null },
      { id: 'd', at: null, body: texts[3], n: null, flag: true },
      { id: 'e', at: utc.lease, body: null, n: 7, flag: false },
    ]);
    expect(utc.lease.getTime()).toBe(lease.getTime());
  });

  it('binds a Date in a binary array as the instant node-postgres binds, in a process and a session on local time, summer and winter', async () => {
    const dates = ['2026-07-01T12:00:00.250Z', '2026-01-15T23:30:00.001Z', '2026-03-08T07:30:00.000Z'];
    const { message: read } = await startTypeScriptChild<{ binary: number; direct: number }[]>(
      './timestamps-in-zone.ts',
      dates,
      { ...process.env, TZ: 'America/New_York' },
    );
    expect(read).toEqual(dates.map((iso) => ({ binary: Date.parse(iso), direct: Date.parse(iso) })));
  });
});
