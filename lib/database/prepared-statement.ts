import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** The part of node-postgres' client that runs a named prepared statement. */
interface PostgresClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Statement names by text: the engine's statements are a handful of fixed texts. */
const names = new Map<string, string>();

function nameOf(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `interview_api_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

/**
 * PostgreSQL: runs a fixed-text statement as a named prepared statement, parsed and planned once per
 * connection (the manager's, else one from the pool), and answers its rows. Logged, with its
 * failure, through the host's TypeORM logger like any other query.
 */
export async function queryPrepared<T>(manager: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const own = manager.queryRunner;
  const runner = own ?? manager.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PostgresClient;
    const { logger } = manager.connection;
    logger.logQuery(sql, params, runner);
    try {
      const { rows } = await client.query({ name: nameOf(sql), text: sql, values: params });
      return rows as T[];
    } catch (error) {
      // As TypeORM's own queries are: a host that logs failed queries sees these too.
      logger.logQueryError(error instanceof Error ? error : String(error), sql, params, runner);
      throw error;
    }
  } finally {
    if (!own) await runner.release();
  }
}
