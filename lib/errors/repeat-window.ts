import { WARNING_KEYS_REMEMBERED, WARNING_REPEAT_INTERVAL_MS } from '../interview-api.tuning.js';

interface Seen {
  loggedAt: number;
  leftOut: number;
}

/**
 * Which occurrences of a repeating thing to log: the first, then one a minute at most per key, each
 * with how many were left out since the last one logged.
 */
export class RepeatWindow {
  private readonly seen = new Map<string, Seen>();

  /** Null when `key` was logged within the minute (this one counted as left out), else how many were. */
  take(key: string, now: number): number | null {
    const seen = this.seen.get(key);
    if (seen !== undefined && now - seen.loggedAt < WARNING_REPEAT_INTERVAL_MS) {
      seen.leftOut++;
      return null;
    }
    if (this.seen.size >= WARNING_KEYS_REMEMBERED && seen === undefined) this.seen.clear();
    this.seen.set(key, { loggedAt: now, leftOut: 0 });
    return seen?.leftOut ?? 0;
  }

  /** Every key is news again. */
  clear(): void {
    this.seen.clear();
  }
}
