/** How often one message may be logged again while it keeps repeating. */
const REPEAT_INTERVAL_MS = 60_000;
/** Messages remembered at most: one that names a job or a delivery is seldom seen twice. */
const MAX_REMEMBERED = 100;

interface Seen {
  loggedAt: number;
  leftOut: number;
}

/**
 * Warnings that can repeat many times a second while a dependency is away (Redis refusing
 * connections, a database restarting): each message is logged once a minute at most, with how many
 * times it was left out, rather than a line each time; and again at once after `clear`, when what
 * caused it is over.
 */
export class RepeatLimitedWarnings {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  add(message: string): void {
    const now = this.now();
    const seen = this.seen.get(message);
    if (seen !== undefined && now - seen.loggedAt < REPEAT_INTERVAL_MS) {
      seen.leftOut++;
      return;
    }
    this.warn(seen?.leftOut ? `${message} (and ${seen.leftOut} times more in the last minute)` : message);
    if (this.seen.size >= MAX_REMEMBERED && seen === undefined) this.seen.clear();
    this.seen.set(message, { loggedAt: now, leftOut: 0 });
  }

  /** What caused them is over: a message seen again is news. */
  clear(): void {
    this.seen.clear();
  }
}
