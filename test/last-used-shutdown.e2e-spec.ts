import pg from 'pg';
import { DataSource } from 'typeorm';
import { apiClient, sleep } from './support/api-client.js';
import { DB_KIND, PG, TestDatabase } from './support/database.js';
import { closedAfterEachTest } from './support/per-test.js';
import { eventually } from './support/receiver.js';
import { warningsDuring } from './support/warnings.js';

/** Hosts of the running test. */
const { hosts, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_last_used_shutdown';

/**
 * A write of last_used_at is under way across the close only where a statement can wait: on
 * PostgreSQL, here for the key's row, which another transaction holds. SQLite's statements run
 * to their end before anything else does.
 */
const onPostgres = DB_KIND === 'postgres' ? it : it.skip;

describe('app.close() of a host while the last use of a key is being written', () => {
  let other: pg.Client | null = null;
  afterEach(async () => {
    await other?.end();
    other = null;
  });

  onPostgres('writes it before the host closes its database, and warns of nothing', async () => {
    const db = await TestDatabase.create();
    // Listed before TypeORM, as a host may: Nest then closes the DataSource before the module's
    // own onApplicationShutdown hooks run.
    const host = await boot({ db, keepDatabase: true, moduleBeforeTypeOrm: true, module: { worker: false } });
    const key = await host.createKey(ACCOUNT, 'test');
    const holder = new pg.Client({ ...PG, options: `-c search_path=${db.name}` });
    other = holder;
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM interview_api_keys FOR UPDATE');

    const warnings = await warningsDuring(async () => {
      expect((await apiClient(host, key).get('/v1/sessions')).status).toBe(200);
      await eventually(async () => {
        const rows: { waiting: string }[] = await host.app.get(DataSource).query(
          `SELECT COUNT(*) AS waiting FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE '%SET "last_used_at"%'`,
        );
        return Number(rows[0].waiting) > 0;
      });
      const closing = hosts.closeNow(host);
      // Long past the close of the DataSource, were the close not to wait for the write.
      await sleep(500);
      await holder.query('COMMIT');
      await closing;
    });

    const reader = await boot({ db });
    const [view] = await reader.keys.list(ACCOUNT);
    expect(warnings).toEqual([]);
    expect(view.last_used_at).not.toBeNull();
  });
});
