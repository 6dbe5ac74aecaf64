/**
 * When attempt `attemptsMade + 1` runs, or null when the schedule is used up. A ±20% jitter
 * spreads the retries of an outage so that a recovering receiver is not hit by all of them at once.
 */
export function nextAttemptAt(
  scheduleMs: readonly number[],
  attemptsMade: number,
  now: Date,
  random: () => number = Math.random,
): Date | null {
  const delay = scheduleMs[attemptsMade - 1];
  if (delay === undefined) return null;
  const jitter = 1 + (random() * 0.4 - 0.2);
  return new Date(now.getTime() + Math.round(delay * jitter));
}
