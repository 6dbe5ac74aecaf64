import type { MigrationInterface } from 'typeorm';
import { InterviewApiInitialPostgres1763800000000 } from './postgres/1763800000000-InterviewApiInitial.js';
import { InterviewApiInitialSqlite1763800000000 } from './sqlite/1763800000000-InterviewApiInitial.js';
import { InterviewApiDeliveryHotPathPostgres1763900000000 } from './postgres/1763900000000-InterviewApiDeliveryHotPath.js';
import { InterviewApiDeliveryHotPathSqlite1763900000000 } from './sqlite/1763900000000-InterviewApiDeliveryHotPath.js';
import { InterviewApiClaimRenewalPostgres1764000000000 } from './postgres/1764000000000-InterviewApiClaimRenewal.js';
import { InterviewApiClaimRenewalSqlite1764000000000 } from './sqlite/1764000000000-InterviewApiClaimRenewal.js';
import { InterviewApiFailingStreakPausePostgres1764100000000 } from './postgres/1764100000000-InterviewApiFailingStreakPause.js';
import { InterviewApiFailingStreakPauseSqlite1764100000000 } from './sqlite/1764100000000-InterviewApiFailingStreakPause.js';
import { InterviewApiIdempotencyKeysPostgres1764200000000 } from './postgres/1764200000000-InterviewApiIdempotencyKeys.js';
import { InterviewApiIdempotencyKeysSqlite1764200000000 } from './sqlite/1764200000000-InterviewApiIdempotencyKeys.js';
import { InterviewApiPendingDeliveriesPostgres1764300000000 } from './postgres/1764300000000-InterviewApiPendingDeliveries.js';
import { InterviewApiPendingDeliveriesSqlite1764300000000 } from './sqlite/1764300000000-InterviewApiPendingDeliveries.js';
import { InterviewApiEventRetentionByKeyPostgres1764400000000 } from './postgres/1764400000000-InterviewApiEventRetentionByKey.js';
import { InterviewApiEventRetentionByKeySqlite1764400000000 } from './sqlite/1764400000000-InterviewApiEventRetentionByKey.js';
import { InterviewApiEventTypeIndexPostgres1764500000000 } from './postgres/1764500000000-InterviewApiEventTypeIndex.js';
import { InterviewApiEventTypeIndexSqlite1764500000000 } from './sqlite/1764500000000-InterviewApiEventTypeIndex.js';
import { InterviewApiRetryDropsPostgres1764600000000 } from './postgres/1764600000000-InterviewApiRetryDrops.js';
import { InterviewApiRetryDropsSqlite1764600000000 } from './sqlite/1764600000000-InterviewApiRetryDrops.js';
import { InterviewApiPendingByEndpointPostgres1764700000000 } from './postgres/1764700000000-InterviewApiPendingByEndpoint.js';
import { InterviewApiPendingByEndpointSqlite1764700000000 } from './sqlite/1764700000000-InterviewApiPendingByEndpoint.js';
import { InterviewApiInstallationPostgres1764800000000 } from './postgres/1764800000000-InterviewApiInstallation.js';
import { InterviewApiInstallationSqlite1764800000000 } from './sqlite/1764800000000-InterviewApiInstallation.js';
import { InterviewApiInstantsPostgres1764900000000 } from './postgres/1764900000000-InterviewApiInstants.js';
import { schemaChecked } from './schema-checked-migration.js';

/** A migration class, as TypeORM's `migrations` option takes it. */
export type InterviewApiMigration = new () => MigrationInterface;

/**
 * The module's migrations for PostgreSQL, oldest first. Each refuses to run in a DataSource `schema`
 * that is not the connection's current one (see schemaChecked).
 */
export const POSTGRES_MIGRATIONS: readonly InterviewApiMigration[] = Object.freeze(
  [
    InterviewApiInitialPostgres1763800000000,
    InterviewApiDeliveryHotPathPostgres1763900000000,
    InterviewApiClaimRenewalPostgres1764000000000,
    InterviewApiFailingStreakPausePostgres1764100000000,
    InterviewApiIdempotencyKeysPostgres1764200000000,
    InterviewApiPendingDeliveriesPostgres1764300000000,
    InterviewApiEventRetentionByKeyPostgres1764400000000,
    InterviewApiEventTypeIndexPostgres1764500000000,
    InterviewApiRetryDropsPostgres1764600000000,
    InterviewApiPendingByEndpointPostgres1764700000000,
    InterviewApiInstallationPostgres1764800000000,
    InterviewApiInstantsPostgres1764900000000,
  ].map(schemaChecked),
);

/** The module's migrations for SQLite (better-sqlite3 or sqlite3), oldest first. */
export const SQLITE_MIGRATIONS: readonly InterviewApiMigration[] = Object.freeze([
  InterviewApiInitialSqlite1763800000000,
  InterviewApiDeliveryHotPathSqlite1763900000000,
  InterviewApiClaimRenewalSqlite1764000000000,
  InterviewApiFailingStreakPauseSqlite1764100000000,
  InterviewApiIdempotencyKeysSqlite1764200000000,
  InterviewApiPendingDeliveriesSqlite1764300000000,
  InterviewApiEventRetentionByKeySqlite1764400000000,
  InterviewApiEventTypeIndexSqlite1764500000000,
  InterviewApiRetryDropsSqlite1764600000000,
  InterviewApiPendingByEndpointSqlite1764700000000,
  InterviewApiInstallationSqlite1764800000000,
]);

/** The database types the module ships migrations for. */
export type InterviewApiMigrationsType = 'postgres' | 'better-sqlite3' | 'sqlite';

/**
 * The module's migrations for a DataSource `type`, for the host to list next to its own:
 * `migrations: [...interviewApiMigrations('postgres'), ...hostMigrations]`.
 */
export function interviewApiMigrations(type: InterviewApiMigrationsType): InterviewApiMigration[] {
  switch (type) {
    case 'postgres':
      return [...POSTGRES_MIGRATIONS];
    case 'better-sqlite3':
    case 'sqlite':
      return [...SQLITE_MIGRATIONS];
    default:
      throw new Error(
        `nest-interview-api ships migrations for postgres, better-sqlite3 and sqlite, not ${String(type)}`,
      );
  }
}
