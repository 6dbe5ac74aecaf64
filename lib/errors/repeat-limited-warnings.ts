import { RepeatWindow } from './repeat-window.js';

/**
 * Warnings that repeat while a dependency is away: each message is logged once a minute at most,
 * with how many times it was left out, and again at once after `clear`.
 */
export class RepeatLimitedWarnings {
  private readonly window = new RepeatWindow();

  constructor(
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  add(message: string): void {
    const leftOut = this.window.take(message, this.now());
    if (leftOut === null) return;
    this.warn(leftOut > 0 ? `${message} (and ${leftOut} times more in the last minute)` : message);
  }

  /** What caused them is over: a message seen again is news. */
  clear(): void {
    this.window.clear();
  }
}
