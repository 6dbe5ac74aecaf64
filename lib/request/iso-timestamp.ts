/** Groups: year, month, day, then (when a time is given) hour and the offset, if any. */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Date parsing rolls 2026-02-30 over into March; a day that does not exist is a client mistake. */
function isCalendarDay(year: number, month: number, day: number): boolean {
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/** The year of `text` when it is a day `YYYY-MM-DD` that exists, or null. */
export function calendarDayYear(text: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return null;
  const [year, month, day] = match.slice(1).map(Number);
  return isCalendarDay(year, month, day) ? year : null;
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
    isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3])) && isListableInstant(date);
  return valid ? date : null;
}

/**
 * Whether `date` is an instant the lists can hold: a valid one in years 0–9999 (UTC). An offset can
 * carry a text's instant out of them (9999-12-31T23:59:59-14:00), and SQLite compares timestamps
 * as text, where year 10000 sorts before 2026.
 */
export function isListableInstant(date: Date): boolean {
  return !Number.isNaN(date.getTime()) && date.getUTCFullYear() >= 0 && date.getUTCFullYear() <= 9999;
}
