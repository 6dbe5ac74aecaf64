import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DataSourceOptions } from 'typeorm';

export type TestDatabaseKind = 'sqlite' | 'postgres';

export const DB_KIND: TestDatabaseKind = process.env.DB === 'postgres' ? 'postgres' : 'sqlite';

/** The suite's PostgreSQL (trust authentication on loopback). */
export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

/**
 * A fresh, isolated database for one test app: a temporary SQLite file, or its own PostgreSQL
 * schema, so that test files run in parallel without seeing each other's rows.
 */
export class TestDatabase {
  private constructor(
    readonly kind: TestDatabaseKind,
    readonly name: string,
  ) {}

  static async create(kind: TestDatabaseKind = DB_KIND): Promise<TestDatabase> {
    const name = `t_${randomBytes(6).toString('hex')}`;
    if (kind === 'postgres') await TestDatabase.postgres(`CREATE SCHEMA ${name}`);
    return new TestDatabase(kind, name);
  }

  /** A database another process created, to be shared (a child process's app, say). */
  static existing(kind: TestDatabaseKind, name: string): TestDatabase {
    return new TestDatabase(kind, name);
  }

  /**
   * `isolation` sets PostgreSQL's default_transaction_isolation for every connection, and `timeZone`
   * its TimeZone, as a host may set them for its database.
   */
  options(
    extra: { synchronize?: boolean; isolation?: 'repeatable read'; timeZone?: string } = {},
  ): DataSourceOptions {
    const synchronize = extra.synchronize ?? true;
    const settings =
      (extra.isolation ? ` -c default_transaction_isolation=${extra.isolation.replace(' ', '\\ ')}` : '') +
      (extra.timeZone ? ` -c TimeZone=${extra.timeZone}` : '');
    if (this.kind === 'postgres') {
      return {
        type: 'postgres',
        host: PG.host,
        port: PG.port,
        username: PG.user,
        database: PG.database,
        schema: this.name,
        synchronize,
        extra: { max: 10, options: `-c search_path=${this.name}${settings}` },
      };
    }
    return { type: 'better-sqlite3', database: this.sqliteFile(), synchronize, enableWAL: true };
  }

  async drop(): Promise<void> {
    if (this.kind === 'postgres') {
      await TestDatabase.postgres(`DROP SCHEMA IF EXISTS ${this.name} CASCADE`);
    } else {
      for (const suffix of ['', '-wal', '-shm']) rmSync(this.sqliteFile() + suffix, { force: true });
    }
  }

  private sqliteFile(): string {
    return join(tmpdir(), `${this.name}.sqlite`);
  }

  private static async postgres(sql: string): Promise<void> {
    const client = new pg.Client(PG);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}
