/** Replies whose `Retry-After` says when the receiver can take the delivery again (RFC 9110, 10.2.3). */
const THROTTLING_STATUSES: ReadonlySet<number> = new Set([429, 503]);

const DELAY_SECONDS = /^\d+$/;

/**
 * How long a receiver asks us to wait, in milliseconds, from a 429 or 503 reply's `Retry-After`
 * (delay-seconds, or an HTTP date read against `now`); null for any other reply, a missing or
 * unreadable header, or a date already past.
 */
export function readRetryAfter(
  status: number,
  header: string | string[] | undefined,
  now: number,
): number | null {
  if (!THROTTLING_STATUSES.has(status) || header === undefined) return null;
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  // Only the IMF-fixdate form a server must send: `Date.parse` would also take a bare year or a
  // local time, and read them in this machine's time zone.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) || at <= now ? null : at - now;
}
