import type { ColumnType } from 'typeorm';
import { calendarDayYear, parseIsoTimestamp } from '../request/iso-timestamp.js';
import { decimalParser, floatParser } from './number-value.js';

/** What the module reads of a host entity's column (TypeORM's ColumnMetadata). */
export interface ColumnShape {
  type: ColumnType;
  enum?: (string | number)[];
  isArray: boolean;
  precision?: number | null;
  scale?: number;
}

/** How a query-string value becomes a value of one column. */
export interface ColumnValueParser {
  /** What a valid value is, for the error message: "an integer", "true or false"... */
  expected: string;
  /** The value to bind, or undefined when no row could hold it. */
  parse(raw: string): unknown;
}

const INTEGER_RANGES: Record<string, bigint> = {
  smallint: 2n ** 15n,
  int2: 2n ** 15n,
  tinyint: 2n ** 7n,
  mediumint: 2n ** 23n,
  int: 2n ** 31n,
  int4: 2n ** 31n,
  integer: 2n ** 31n,
  bigint: 2n ** 63n,
  int8: 2n ** 63n,
  int64: 2n ** 63n,
  // SQLite's name for an integer column: it stores 64-bit signed integers whatever the name says.
  'unsigned big int': 2n ** 63n,
};
const FLOAT_BYTES: Record<string, 4 | 8> = {
  real: 4,
  float4: 4,
  // PostgreSQL's float without a precision is a double; SQLite's floats are all doubles.
  float: 8,
  float8: 8,
  double: 8,
  'double precision': 8,
};
const DECIMAL_TYPES = new Set(['decimal', 'numeric', 'dec']);
const TIMESTAMP_TYPES = new Set([
  'timestamp',
  'timestamptz',
  'timestamp with time zone',
  'timestamp without time zone',
  'datetime',
]);
/**
 * Types whose values are compared as the text given. Any other type without a parser here (JSON,
 * binary, time, interval, inet...) is refused as a filter when the module boots: PostgreSQL would
 * fail the statement on text the type cannot read, answering 500 rather than 400.
 */
const TEXT_TYPES = new Set([
  'varchar',
  'character varying',
  'varying character',
  'nvarchar',
  'char',
  'character',
  'nchar',
  'native character',
  'text',
  'citext',
  'clob',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d+$/;

/** The column's declared type by name: the entity's, whichever database it runs on. */
export function typeName(type: ColumnType): string {
  if (type === Number) return 'integer';
  if (type === Boolean) return 'boolean';
  if (type === Date) return 'timestamp';
  if (type === String) return 'varchar';
  return String(type).toLowerCase();
}

function integer(range: bigint): ColumnValueParser {
  return {
    expected: 'an integer',
    parse(raw) {
      if (!INTEGER.test(raw)) return undefined;
      const value = BigInt(raw);
      if (value < -range || value >= range) return undefined;
      // Beyond 2^53 a JavaScript number loses digits: the database reads the digits themselves.
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    },
  };
}

/**
 * The parser of a column's filter values, or null when the column cannot be filtered on. A value
 * of the wrong kind (`abc` for an integer, `maybe` for a boolean, a malformed uuid) is refused by
 * the module, never handed to the database, which would fail the whole request.
 */
export function columnValueParser(column: ColumnShape): ColumnValueParser | null {
  const type = typeName(column.type);
  if (column.isArray) return null;
  if (column.enum !== undefined) {
    const values = column.enum.map(String);
    return {
      expected: `one of ${values.join(', ')}`,
      parse: (raw) => (values.includes(raw) ? raw : undefined),
    };
  }
  if (type in INTEGER_RANGES) return integer(INTEGER_RANGES[type]);
  if (type in FLOAT_BYTES) return floatParser(FLOAT_BYTES[type]);
  if (DECIMAL_TYPES.has(type)) return decimalParser(column.precision, column.scale);
  if (type === 'boolean' || type === 'bool') {
    return {
      expected: 'true or false',
      parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
    };
  }
  if (TIMESTAMP_TYPES.has(type)) {
    return {
      expected: 'an ISO 8601 timestamp, e.g. 2026-11-21T09:30:00.000Z',
      parse: (raw) => parseIsoTimestamp(raw) ?? undefined,
    };
  }
  if (type === 'date') {
    // The day is bound as its text, which both databases compare as that day. A Date would be
    // bound as a datetime (SQLite: `2026-03-05 00:00:00.000`, no stored day's text) or in the
    // process's time zone (node-postgres: west of UTC, the day before). A timestamp is refused
    // rather than read as the day it falls on in one zone or another.
    return {
      expected: 'a date, e.g. 2026-11-21',
      parse(raw) {
        const year = calendarDayYear(raw);
        // PostgreSQL has no year 0: it would fail the statement rather than match nothing.
        return year !== null && year >= 1 ? raw : undefined;
      },
    };
  }
  if (type === 'uuid') {
    // PostgreSQL's uuid ignores case, SQLite's text does not: stored uuids are lower case.
    return { expected: 'a uuid', parse: (raw) => (UUID.test(raw) ? raw.toLowerCase() : undefined) };
  }
  return TEXT_TYPES.has(type) ? { expected: 'a string', parse: (raw) => raw } : null;
}
