import type { DataSource, Repository } from 'typeorm';
import { generateId } from '../identifiers/generate-id.js';
import { InstallationEntity } from './installation.entity.js';

/** The installation's id (a string), read from the database once, when the application is created. */
export const INSTALLATION_ID = Symbol('INSTALLATION_ID');

/** The key of the table's one row. */
const SINGLETON = 1;

/**
 * The id of the installation whose database `dataSource` opens, created by the first process to
 * start on it. Every process on one database reads the same id, and processes on different
 * databases read different ones, whatever Redis and queuePrefix they share; a database restored
 * from another keeps the other's id, its data being that installation's.
 */
export async function readInstallationId(dataSource: DataSource): Promise<string> {
  const rows = dataSource.getRepository(InstallationEntity);
  try {
    return (await storedId(rows)) ?? (await createdId(rows));
  } catch (error) {
    throw new Error(
      'nest-interview-api could not read its installation id (table interview_installation, made by its migration InterviewApiInstallation or by synchronize)',
      { cause: error },
    );
  }
}

async function storedId(rows: Repository<InstallationEntity>): Promise<string | null> {
  const row = await rows.findOne({ where: { singleton: SINGLETON }, cache: false });
  return row?.id ?? null;
}

/** A new id, unless a process starting at the same time inserted its own first: then that one. */
async function createdId(rows: Repository<InstallationEntity>): Promise<string> {
  // Under REPEATABLE READ, PostgreSQL refuses (a serialization failure) rather than skips an
  // insert that waited for a row committed after it began: that row is there to read.
  const refusal: unknown = await rows
    .createQueryBuilder()
    .insert()
    .values({ singleton: SINGLETON, id: generateId('ins') })
    .orIgnore()
    .execute()
    .then(
      () => null,
      (error: unknown) => error,
    );
  const id = await storedId(rows);
  if (id !== null) return id;
  throw refusal ?? new Error('interview_installation was emptied as its row was inserted');
}
