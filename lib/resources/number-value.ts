import type { ColumnValueParser } from './column-value.js';

const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
/** PostgreSQL's numeric: at most 131072 digits before the decimal point and 16383 after it. */
const NUMERIC_INTEGER_DIGITS = 131072;
const NUMERIC_SCALE = 16383;

/** A decimal literal as a numeric type reads it: its digits either side of the decimal point. */
interface DecimalLiteral {
  /** Significant digits before the decimal point, once the exponent is applied. */
  integerDigits: number;
  /** Digits written after the decimal point, once the exponent is applied (trailing zeros count). */
  scale: number;
  exponent: number;
  /** Whether a digit is not 0: a float reading such a literal as 0 has underflowed. */
  nonZero: boolean;
}

function decimalLiteral(raw: string): DecimalLiteral | null {
  if (!DECIMAL.test(raw)) return null;
  const [mantissa, exponentText = '0'] = raw.toLowerCase().replace(/^-/, '').split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  // An exponent of hundreds of digits reads as Infinity, which every bound below refuses.
  const exponent = Number(exponentText);
  const first = (whole + fraction).search(/[1-9]/);
  return {
    integerDigits: first === -1 ? 0 : Math.max(0, whole.length + exponent - first),
    scale: Math.max(0, fraction.length - exponent),
    exponent,
    nonZero: first !== -1,
  };
}

/**
 * A float column's values: the literal must read as a finite number of the column's size, and as
 * 0 only when it is 0. PostgreSQL fails the statement on `1e400` or `1e-400`, rather than find nothing.
 */
export function floatParser(bytes: 4 | 8): ColumnValueParser {
  return {
    expected:
      bytes === 4
        ? 'a number within the range of a 4-byte float'
        : 'a number within the range of an 8-byte float',
    parse(raw) {
      const literal = decimalLiteral(raw);
      if (!literal) return undefined;
      const value = bytes === 4 ? Math.fround(Number(raw)) : Number(raw);
      if (!Number.isFinite(value) || (value === 0 && literal.nonZero)) return undefined;
      // Bound as the text given: the database reads it as a float of its own size.
      return raw;
    },
  };
}

/**
 * A decimal column's values: within its precision and scale when it declares them (digits beyond
 * the scale only match nothing), within what PostgreSQL's numeric reads otherwise.
 */
export function decimalParser(
  precision: number | null | undefined,
  scale: number | undefined,
): ColumnValueParser {
  const integerDigits = precision ? precision - (scale ?? 0) : NUMERIC_INTEGER_DIGITS;
  return {
    expected: precision ? `a number less than 1e${integerDigits} in absolute value` : 'a number',
    parse(raw) {
      const literal = decimalLiteral(raw);
      const fits =
        literal !== null &&
        Math.abs(literal.exponent) <= NUMERIC_INTEGER_DIGITS &&
        literal.integerDigits <= integerDigits &&
        literal.scale <= NUMERIC_SCALE;
      // Bound as the text given: the column compares it exactly.
      return fits ? raw : undefined;
    },
  };
}
