import { containsNul, nulRefusal } from '../database/nul-character.js';
import { ParameterInvalidError, UnknownParameterError } from '../errors/api-error.js';
import { parseIsoTimestamp } from '../request/iso-timestamp.js';

/** The list parameters every list shares (docs/api-contract.md, Pagination), validated. */
export interface ListParams {
  limit: number;
  cursor?: string;
  createdGte?: Date;
  createdLt?: Date;
  /** The list's own filters (e.g. `status`), by query name. */
  filters: Record<string, string | undefined>;
}

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
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new ParameterInvalidError(name, `${name} must be given once, as a string.`);
  if (containsNul(value)) throw new ParameterInvalidError(name, nulRefusal(name));
  return value;
}

/** Digits past the millisecond that are not all zero, which a Date drops. */
const BETWEEN_MILLISECONDS = /\.\d{3}\d*[1-9]/;

/**
 * A bound as the lists compare it: one between two milliseconds (`…00.0005Z`) is taken as the next,
 * so that for times stored to the millisecond the comparison is exact, where truncating would move
 * the bound back.
 */
function timestamp(query: Record<string, unknown>, name: string): Date | undefined {
  const given = query[name];
  // A Date is read as its ISO text, so that it meets the same bounds as one sent in a query.
  const value =
    given instanceof Date ? (Number.isNaN(given.getTime()) ? '' : given.toISOString()) : single(query, name);
  if (value === undefined) return undefined;
  const date = parseIsoTimestamp(value);
  if (date === null) {
    throw new ParameterInvalidError(
      name,
      `${name} must be an ISO 8601 timestamp, e.g. 2026-11-21T09:30:00.000Z.`,
    );
  }
  return BETWEEN_MILLISECONDS.test(value) ? new Date(date.getTime() + 1) : date;
}

/**
 * Parses a list request's query (or a ListQuery). Unknown parameters are refused rather than
 * ignored, so a typo in a filter never silently widens the list.
 */
export function parseListParams(
  given: ListQuery | Record<string, unknown>,
  filterNames: readonly string[] = [],
): ListParams {
  const query: Record<string, unknown> = { ...given };
  for (const name of Object.keys(query)) {
    if (!SHARED.includes(name) && !filterNames.includes(name)) {
      throw new UnknownParameterError(name);
    }
  }
  const rawLimit = typeof query.limit === 'number' ? String(query.limit) : single(query, 'limit');
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
