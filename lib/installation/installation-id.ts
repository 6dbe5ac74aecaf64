import type { DataSource } from 'typeorm';
import { SqlDialect } from '../database/sql-dialect.js';
import { generateId } from '../identifiers/generate-id.js';

/** The installation's id (a string), read from the database once, when the application is created. */
export const INSTALLATION_ID = Symbol('INSTALLATION_ID');

const TABLE = 'interview_installation';
/** The key of the table's one row. */
const SINGLETON = 1;

/**
 * The installation id of `dataSource`'s database, created by the first process to start on it: the
 * same for every process on one database, different across databases whatever Redis they share
 * (a restored database keeps its source's id, as it holds that installation's data).
 */
export async function readInstallationId(dataSource: DataSource): Promise<string> {
  const sql = new SqlDialect(dataSource);
  try {
    return (await storedId(dataSource, sql)) ?? (await createdId(dataSource, sql));
  } catch (error) {
    throw new Error(
      `nest-interview-api could not read its installation id from ${TABLE} (made by its migration InterviewApiInstallation, or by synchronize with InstallationEntity among the entities): ${String(error)}`,
      { cause: error },
    );
  }
}

async function storedId(dataSource: DataSource, sql: SqlDialect): Promise<string | null> {
  const rows = (await dataSource.query(`SELECT id FROM ${TABLE} WHERE singleton = ${sql.param(1)}`, [
    SINGLETON,
  ])) as { id: string }[];
  return rows[0]?.id ?? null;
}

/** A new id, unless a process starting at the same time inserted its own first: then that one. */
async function createdId(dataSource: DataSource, sql: SqlDialect): Promise<string> {
  const insert = sql.postgres
    ? `INSERT INTO ${TABLE} (singleton, id) VALUES ($1, $2) ON CONFLICT DO NOTHING`
    : `INSERT OR IGNORE INTO ${TABLE} (singleton, id) VALUES (?, ?)`;
  // Under REPEATABLE READ, PostgreSQL refuses (a serialization failure) rather than skips an
  // insert that waited for a row committed after it began: that row is there to read.
  const refusal: unknown = await dataSource.query(insert, [SINGLETON, generateId('ins')]).then(
    () => null,
    (error: unknown) => error,
  );
  const id = await storedId(dataSource, sql);
  if (id !== null) return id;
  throw refusal ?? new Error(`${TABLE} was emptied as its row was inserted`);
}
