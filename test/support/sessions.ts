import { DataSource } from 'typeorm';
import { generateId } from '../../lib/identifiers/generate-id.js';
import type { TestHost } from './host-app.js';
import { SessionEntity } from './session.entity.js';

export interface SessionSeed {
  accountId: string;
  livemode: boolean;
  createdAt: Date;
  status?: string;
  candidateName?: string;
}

/** Inserts host sessions straight through the app's own DataSource, as the host itself would. */
export async function insertSessions(host: TestHost, seeds: SessionSeed[]): Promise<SessionEntity[]> {
  const repository = host.app.get(DataSource).getRepository(SessionEntity);
  const rows = seeds.map((seed, index) =>
    repository.create({
      id: generateId('ses', seed.createdAt),
      accountId: seed.accountId,
      livemode: seed.livemode,
      status: seed.status ?? 'scheduled',
      candidateName: seed.candidateName ?? `Candidate ${index}`,
      createdAt: seed.createdAt,
    }),
  );
  // Small batches: SQLite caps the number of bound parameters per statement.
  for (let start = 0; start < rows.length; start += 50) {
    await repository.insert(rows.slice(start, start + 50));
  }
  return rows;
}

/**
 * Inserts one session whose created_at is the database text `stored` (`2026-01-08 10:00:28`), as a
 * column default or another writer than TypeORM may store it; answers its id.
 */
export async function insertSessionStoredAs(
  host: TestHost,
  accountId: string,
  idTime: Date,
  stored: string,
): Promise<string> {
  const id = generateId('ses', idTime);
  await host.app
    .get(DataSource)
    .getRepository(SessionEntity)
    .createQueryBuilder()
    .insert()
    .values({
      id,
      accountId,
      livemode: false,
      status: 'completed',
      candidateName: 'Stored',
      createdAt: () => `'${stored}'`,
    })
    .execute();
  return id;
}

/** The order every list promises: newest first, then by id, descending. */
export function newestFirst<T extends { createdAt: Date; id: string }>(rows: readonly T[]): T[] {
  return [...rows].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
}
