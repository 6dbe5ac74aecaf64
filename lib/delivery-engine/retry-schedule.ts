/**
 * When attempt `attemptsMade + 1` runs, or null when the schedule is used up. A ±20% jitter
 * spreads the retries of an outage so that a recovering receiver is not hit by all of them at once.
 * A throttling receiver's `Retry-After` (`askedDelayMs`) can put the retry later, never earlier, and
 * at most twice as late as the schedule says (as Svix does): one reply must not park a delivery.
 */
export function nextAttemptAt(
  scheduleMs: readonly number[],
  attemptsMade: number,
  now: Date,
  askedDelayMs: number | null = null,
  random: () => number = Math.random,
): Date | null {
  const delay = scheduleMs[attemptsMade - 1];
  if (delay === undefined) return null;
  const scheduled = Math.round(delay * (1 + (random() * 0.4 - 0.2)));
  const wait = askedDelayMs === null ? scheduled : Math.min(Math.max(scheduled, askedDelayMs), 2 * scheduled);
  return new Date(now.getTime() + wait);
}
