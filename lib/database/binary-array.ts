/** The element types the engine binds as arrays, by their PostgreSQL names. */
export type ArrayElementType = 'text' | 'boolean' | 'integer' | 'timestamptz';

/** PostgreSQL's type oids, which its binary array format names the elements by. */
const OIDS: Record<ArrayElementType, number> = { text: 25, boolean: 16, integer: 23, timestamptz: 1184 };

/** Bytes of an element of each fixed-size type. */
const FIXED_BYTES: Record<Exclude<ArrayElementType, 'text'>, number> = {
  boolean: 1,
  integer: 4,
  timestamptz: 8,
};

/** 2000-01-01T00:00:00Z in Unix milliseconds: PostgreSQL's binary timestamptz counts from it. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/** Ints of the header: dimensions, has-nulls flag, element oid, length and lower bound. */
const HEADER_BYTES = 20;

function invalid(type: ArrayElementType, value: unknown): TypeError {
  return new TypeError(`cannot bind ${String(value)} as a PostgreSQL ${type}`);
}

/** The bytes `value` takes as an element of `type`, checking that it is one. */
function elementBytes(type: ArrayElementType, value: unknown): number {
  if (type === 'text') {
    if (typeof value !== 'string') throw invalid(type, value);
    return Buffer.byteLength(value, 'utf8');
  }
  const fits =
    type === 'boolean'
      ? typeof value === 'boolean'
      : type === 'integer'
        ? typeof value === 'number' && Number.isInteger(value)
        : value instanceof Date && !Number.isNaN(value.getTime());
  if (!fits) throw invalid(type, value);
  return FIXED_BYTES[type];
}

function writeElement(out: Buffer, offset: number, type: ArrayElementType, value: unknown): void {
  if (type === 'text') out.write(value as string, offset, 'utf8');
  else if (type === 'boolean') out[offset] = value ? 1 : 0;
  else if (type === 'integer') out.writeInt32BE(value as number, offset);
  else out.writeBigInt64BE(BigInt((value as Date).getTime() - POSTGRES_EPOCH_MS) * 1000n, offset);
}

/**
 * A one-dimensional array bound in PostgreSQL's binary format (node-postgres sends a Buffer from
 * `toPostgres` as it is): the server reads each element by its length, with no escaping on either
 * side (docs/decisions.md, Databases).
 */
export class BinaryArray {
  constructor(
    private readonly type: ArrayElementType,
    private readonly values: readonly unknown[],
  ) {}

  toPostgres(): Buffer {
    const { type, values } = this;
    const lengths = values.map((value) =>
      value === null || value === undefined ? -1 : elementBytes(type, value),
    );
    const size = lengths.reduce((sum, length) => sum + 4 + Math.max(length, 0), HEADER_BYTES);
    const out = Buffer.allocUnsafe(size);
    out.writeInt32BE(1, 0);
    out.writeInt32BE(lengths.includes(-1) ? 1 : 0, 4);
    out.writeInt32BE(OIDS[type], 8);
    out.writeInt32BE(values.length, 12);
    out.writeInt32BE(1, 16);
    let offset = HEADER_BYTES;
    values.forEach((value, i) => {
      out.writeInt32BE(lengths[i], offset);
      offset += 4;
      if (lengths[i] < 0) return;
      writeElement(out, offset, type, value);
      offset += lengths[i];
    });
    return out;
  }
}
