import type { DataSource } from 'typeorm';

/**
 * The few places the delivery engine writes SQL by hand (claims and batched outcomes, where the
 * ORM would issue a statement per row) differ between PostgreSQL and SQLite only here.
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
