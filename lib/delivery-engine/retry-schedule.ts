/**
 * When attempt `attemptsMade + 1` runs, or null when the schedule is used up. ±20 % jitter spreads an
 * outage's retries; a `Retry-After` (`askedDelayMs`) may put a retry later, never earlier, and at
 * most twice as late as scheduled, so that one reply cannot park a delivery.
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
