/**
 * When attempt `attemptsMade + 1` runs, or null when the schedule is used up. A ±20% jitter
 * spreads the retries of an outage so that a recovering receiver is not hit by all of them at once.
 * A throttling receiver's `Retry-After` (`askedDelayMs`) can put the retry later, never earlier, and
 * never by more than the schedule's longest delay: one reply must not park a delivery for ever.
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
  const jitter = 1 + (random() * 0.4 - 0.2);
  const asked = askedDelayMs === null ? 0 : Math.min(askedDelayMs, Math.max(...scheduleMs));
  return new Date(now.getTime() + Math.max(Math.round(delay * jitter), asked));
}
