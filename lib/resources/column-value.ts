import type { ColumnType } from 'typeorm';
import { parseIsoTimestamp } from '../request/iso-timestamp.js';

/** What the module reads of a host entity's column (TypeORM's ColumnMetadata). */
export interface ColumnShape {
  type: ColumnType;
  enum?: (string | number)[];
  isArray: boolean;
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
};
const DECIMAL_TYPES = new Set([
  'decimal',
  'numeric',
  'dec',
  'float',
  'float4',
  'float8',
  'real',
  'double',
  'double precision',
]);
const TIMESTAMP_TYPES = new Set([
  'timestamp',
  'timestamptz',
  'timestamp with time zone',
  'timestamp without time zone',
  'datetime',
  'date',
]);
/** Types no text from a query string can equal: refused as filters when the module boots. */
const UNFILTERABLE_TYPES = new Set(['json', 'jsonb', 'simple-json', 'simple-array', 'bytea', 'blob']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;

/** The column's declared type by name: the entity's, whichever database it runs on. */
function typeName(type: ColumnType): string {
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
  if (column.isArray || UNFILTERABLE_TYPES.has(type)) return null;
  if (column.enum !== undefined) {
    const values = column.enum.map(String);
    return {
      expected: `one of ${values.join(', ')}`,
      parse: (raw) => (values.includes(raw) ? raw : undefined),
    };
  }
  if (type in INTEGER_RANGES) return integer(INTEGER_RANGES[type]);
  if (DECIMAL_TYPES.has(type)) {
    // Bound as the text given: a numeric column compares it exactly, a float one as a float.
    return { expected: 'a number', parse: (raw) => (DECIMAL.test(raw) ? raw : undefined) };
  }
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
  if (type === 'uuid') return { expected: 'a uuid', parse: (raw) => (UUID.test(raw) ? raw : undefined) };
  return { expected: 'a string', parse: (raw) => raw };
}
