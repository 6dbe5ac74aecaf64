import type { DataSource } from 'typeorm';
import { type ArrayElementType, BinaryArray } from './binary-array.js';

/** A column of rows bound in one go: its name, and its type on PostgreSQL. */
export type RowColumn = readonly [name: string, postgresType: ArrayElementType];

/** Rows as a common table expression, and the values it binds. */
export interface RowsCte {
  cte: string;
  params: unknown[];
}

/**
 * The SQL the module writes by hand (the outbox, the engine's claims and batched outcomes, the drop
 * of retries, retention: where the ORM would issue a statement per row) differs between PostgreSQL
 * and SQLite only here.
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
   * statement text never changes and is parsed and planned once; on SQLite a VALUES list.
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

  /** A list of placeholders for an IN (...) clause starting at n. */
  list(start: number, count: number): string {
    return Array.from({ length: count }, (_, i) => this.param(start + i)).join(', ');
  }
}
