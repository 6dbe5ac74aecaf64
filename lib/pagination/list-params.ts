import { containsNul, nulRefusal } from '../database/nul-character.js';
import { ParameterInvalidError, UnknownParameterError } from '../errors/api-error.js';
import { isListableInstant, parseIsoTimestamp } from '../request/iso-timestamp.js';

/** The list parameters every list shares (docs/api-contract.md, Pagination), validated. */
export interface ListParams {
  limit: number;
  cursor?: string;
  createdGte?: Date;
  createdLt?: Date;
  /**
   * The list's own filters (e.g. `status`), by query name, as text: a value a host's transforming
   * pipe made a number, a boolean or a Date is given as its text (a Date in ISO 8601), which is what
   * cursors are bound to; the typed value is the host's DTO's.
   */
  filters: Record<string, string | undefined>;
}

/** One parameter's value: the query's text, or what a host's transforming pipe made of it. */
type GivenValue = string | number | boolean | Date;

/**
 * The shared list parameters as a caller in the process may give them: as a query string has them,
 * or already typed (a number for `limit`, Dates for the bounds), within the same bounds.
 */
export interface ListQuery {
  limit?: number | string;
  cursor?: string;
  created_gte?: Date | string;
  created_lt?: Date | string;
}

const SHARED = ['limit', 'cursor', 'created_gte', 'created_lt'];
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** The one value of `name`, or undefined; a repeated parameter (an array) or a nested one is refused. */
function given(query: Readonly<Record<string, unknown>>, name: string): GivenValue | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (containsNul(value)) throw new ParameterInvalidError(name, nulRefusal(name));
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  throw new ParameterInvalidError(name, `${name} must be given once, as a string.`);
}

function parseLimit(value: GivenValue | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ParameterInvalidError('limit', `limit must be an integer between 1 and ${MAX_LIMIT}.`);
  }
  return limit;
}

/** Digits past the millisecond that are not all zero, which a Date drops. */
const BETWEEN_MILLISECONDS = /\.\d{3}\d*[1-9]/;

/**
 * A bound as the lists compare it: one between two milliseconds (`…00.0005Z`) is taken as the next,
 * so that for times stored to the millisecond the comparison is exact, where truncating would move
 * the bound back. A Date (from a host's transforming pipe) is taken as it is, within the same years.
 */
function timestamp(query: Readonly<Record<string, unknown>>, name: string): Date | undefined {
  const value = given(query, name);
  if (value === undefined) return undefined;
  let date: Date | null = null;
  if (typeof value === 'string') date = parseIsoTimestamp(value);
  else if (value instanceof Date && isListableInstant(value)) date = value;
  if (date === null) {
    throw new ParameterInvalidError(
      name,
      `${name} must be an ISO 8601 timestamp, e.g. 2026-11-21T09:30:00.000Z.`,
    );
  }
  return typeof value === 'string' && BETWEEN_MILLISECONDS.test(value) ? new Date(date.getTime() + 1) : date;
}

/** A filter's value as text; a Date that is no instant has none. */
function filterText(name: string, value: GivenValue): string {
  if (!(value instanceof Date)) return String(value);
  if (Number.isNaN(value.getTime())) throw new ParameterInvalidError(name, `${name} must be a valid date.`);
  return value.toISOString();
}

/**
 * Parses a list request's query: the query as sent (`@Query() query: Record<string, unknown>`), or
 * a host's DTO after its transforming pipe (a number for `limit`, Dates for `created_gte` and
 * `created_lt`), refused alike when out of bounds. Unknown parameters are refused rather than
 * ignored, so that a typo in a filter never silently widens the list; a DTO's property left
 * undefined counts as not given.
 */
export function parseListParams(query: object, filterNames: readonly string[] = []): ListParams {
  const values = query as Readonly<Record<string, unknown>>;
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && !SHARED.includes(name) && !filterNames.includes(name)) {
      throw new UnknownParameterError(name);
    }
  }
  const limit = parseLimit(given(values, 'limit'));
  const cursor = given(values, 'cursor');
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ParameterInvalidError('cursor', 'cursor must be given once, as a string.');
  }
  if (cursor === '') throw new ParameterInvalidError('cursor', 'cursor must not be empty.');
  const filters: Record<string, string | undefined> = {};
  for (const name of filterNames) {
    const value = given(values, name);
    if (value === '') throw new ParameterInvalidError(name, `${name} must not be empty.`);
    filters[name] = value === undefined ? undefined : filterText(name, value);
  }
  return {
    limit,
    cursor,
    createdGte: timestamp(values, 'created_gte'),
    createdLt: timestamp(values, 'created_lt'),
    filters,
  };
}
