import { containsNul, nulRefusal } from '../database/nul-character.js';
import { ParameterInvalidError, UnknownParameterError } from '../errors/api-error.js';

/** The shared list parameters of seed section 4.4, validated. */
export interface ListParams {
  limit: number;
  cursor?: string;
  createdGte?: Date;
  createdLt?: Date;
  /** The list's own filters (e.g. `status`), by query name. */
  filters: Record<string, string | undefined>;
}

const SHARED = ['limit', 'cursor', 'created_gte', 'created_lt'];
/** Groups: year, month, day, then (when a time is given) hour and the offset, if any. */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Date parsing rolls 2026-02-30 over into March; a day that does not exist is a client mistake. */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new ParameterInvalidError(name, `${name} must be given once, as a string.`);
  if (containsNul(value)) throw new ParameterInvalidError(name, nulRefusal(name));
  return value;
}

/**
 * An ISO 8601 date or date-time as the API reads it (without an offset: UTC), or null when it is
 * none or names a day or year the lists cannot hold.
 */
export function parseIsoTimestamp(value: string): Date | null {
  const match = ISO_8601.exec(value);
  if (match === null) return null;
  // JavaScript reads a date-time without an offset in the server's time zone; the API reads it as
  // UTC, so that the answer does not depend on where the host runs.
  const hasTimeWithoutOffset = match[4] !== undefined && match[5] === undefined;
  const date = new Date(hasTimeWithoutOffset ? `${value}Z` : value);
  const valid =
    !Number.isNaN(date.getTime()) &&
    isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3])) &&
    // An offset can carry the instant out of years 0–9999 (9999-12-31T23:59:59-14:00): SQLite
    // compares timestamps as text, where year 10000 sorts before 2026.
    date.getUTCFullYear() >= 0 &&
    date.getUTCFullYear() <= 9999;
  return valid ? date : null;
}

function timestamp(query: Record<string, unknown>, name: string): Date | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  const date = parseIsoTimestamp(value);
  if (date === null) {
    throw new ParameterInvalidError(
      name,
      `${name} must be an ISO 8601 timestamp, e.g. 2026-11-21T09:30:00.000Z.`,
    );
  }
  return date;
}

/**
 * Parses a list request's query. Unknown parameters are refused rather than ignored, so a typo in
 * a filter never silently widens the list.
 */
export function parseListParams(
  query: Record<string, unknown>,
  filterNames: readonly string[] = [],
): ListParams {
  for (const name of Object.keys(query)) {
    if (!SHARED.includes(name) && !filterNames.includes(name)) {
      throw new UnknownParameterError(name);
    }
  }
  const rawLimit = single(query, 'limit');
  const limit = rawLimit === undefined ? 25 : Number(rawLimit);
  if (rawLimit !== undefined && (!/^\d+$/.test(rawLimit) || limit < 1 || limit > 100)) {
    throw new ParameterInvalidError('limit', 'limit must be an integer between 1 and 100.');
  }
  const cursor = single(query, 'cursor');
  if (cursor === '') throw new ParameterInvalidError('cursor', 'cursor must not be empty.');
  const filters: Record<string, string | undefined> = {};
  for (const name of filterNames) {
    const value = single(query, name);
    if (value === '') throw new ParameterInvalidError(name, `${name} must not be empty.`);
    filters[name] = value;
  }
  return {
    limit,
    cursor,
    createdGte: timestamp(query, 'created_gte'),
    createdLt: timestamp(query, 'created_lt'),
    filters,
  };
}
