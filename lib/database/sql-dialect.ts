import type { DataSource } from 'typeorm';

/**
 * The most values SQLite binds in one statement (its SQLITE_MAX_VARIABLE_NUMBER since 3.32): one
 * binding more fails with "too many SQL variables".
 */
export const SQLITE_MAX_BOUND_VALUES = 32_766;

/**
 * The most rows of `width` values one SQLite statement binds, besides `others` values of its own:
 * SQLite binds every value of every row.
 */
export function rowsPerSqliteStatement(width: number, others: number): number {
  return Math.floor((SQLITE_MAX_BOUND_VALUES - others) / width);
}

/**
 * What hand-written SQL binds differently on PostgreSQL and SQLite: placeholders, and timestamps
 * as the column stores them. Each statement's own form is written per database where it lives.
 */
export class SqlDialect {
  readonly postgres: boolean;

  constructor(dataSource: DataSource) {
    this.postgres = dataSource.options.type === 'postgres';
  }

  /** The n-th (1-based) bind placeholder. */
  param(n: number): string {
    return this.postgres ? `$${n}` : '?';
  }

  /** A timestamp bound as the column stores it (SQLite keeps UTC text, TypeORM's format). */
  time(date: Date | null): Date | string | null {
    if (date === null || this.postgres) return date;
    return date.toISOString().replace('T', ' ').replace('Z', '');
  }

  /** A list of placeholders for an IN (...) clause starting at n. */
  list(start: number, count: number): string {
    return Array.from({ length: count }, (_, i) => this.param(start + i)).join(', ');
  }
}
