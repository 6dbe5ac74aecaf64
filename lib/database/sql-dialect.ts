import type { DataSource } from 'typeorm';
import { type ArrayElementType, BinaryArray } from './binary-array.js';

/** A column of rows bound in one go: its name, and its type on PostgreSQL. */
export type RowColumn = readonly [name: string, postgresType: ArrayElementType];

/**
 * The most values SQLite binds in one statement (its SQLITE_MAX_VARIABLE_NUMBER since 3.32): one
 * binding more fails with "too many SQL variables".
 */
export const SQLITE_MAX_BOUND_VALUES = 32_766;

/**
 * The most rows one SQLite statement reading them through `rows` can bind, besides `others` values
 * of its own: SQLite binds every value of every row.
 */
export function rowsPerSqliteStatement(columns: readonly RowColumn[], others: number): number {
  return Math.floor((SQLITE_MAX_BOUND_VALUES - others) / columns.length);
}

/** Rows as a common table expression, and the values it binds. */
export interface RowsCte {
  cte: string;
  params: unknown[];
}

/**
 * What the SQL the module writes by hand (the outbox, the engine's claims and batched outcomes, the
 * drop of retries, retention: where the ORM would issue a statement per row) binds differently on
 * PostgreSQL and SQLite: placeholders, timestamps as the column stores them, rows read like a
 * table and how many one statement can bind, IN lists. What else differs between the two (a
 * statement's own form, its locks, transactions) is decided where that statement is written, on
 * `postgres` or the DataSource's type.
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

  /**
   * Rows that statements read like a table, as the CTE `name`, binding from the first placeholder
   * on. On PostgreSQL one binary array per column, whatever the number of rows, so that the
   * statement text never changes and is parsed and planned once; on SQLite a VALUES list, binding
   * every value (see `parts`).
   */
  rows(name: string, columns: readonly RowColumn[], rows: readonly unknown[][]): RowsCte {
    const names = columns.map(([column]) => column);
    if (this.postgres) {
      const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
      return {
        cte: `${name} AS (SELECT * FROM unnest(${arrays}) AS ${name}(${names.join(', ')}))`,
        params: columns.map(
          ([, type], i) =>
            new BinaryArray(
              type,
              rows.map((row) => row[i]),
            ),
        ),
      };
    }
    const row = `(${columns.map(() => '?').join(', ')})`;
    return {
      cte: `${name}(${names.join(', ')}) AS (VALUES ${rows.map(() => row).join(', ')})`,
      params: rows.flat(),
    };
  }

  /**
   * The rows in as few parts as statements reading each part through `rows` can bind, besides
   * `others` values of their own: on SQLite parts of `rowsPerSqliteStatement`; on PostgreSQL, which
   * binds a column in one array whatever the number of rows, one part.
   */
  parts<T>(rows: readonly T[], columns: readonly RowColumn[], others: number): (readonly T[])[] {
    const size = this.postgres ? Infinity : rowsPerSqliteStatement(columns, others);
    const parts: (readonly T[])[] = [];
    for (let start = 0; start < rows.length; start += size) parts.push(rows.slice(start, start + size));
    return parts;
  }

  /** A list of placeholders for an IN (...) clause starting at n. */
  list(start: number, count: number): string {
    return Array.from({ length: count }, (_, i) => this.param(start + i)).join(', ');
  }
}
