import { Clock } from '../../lib/clock/clock.js';

/**
 * The module's Clock in a process whose own clock is `offMs` off. Unlike ClockAhead, which moves the
 * module's time itself, this one leaves the module to notice (on PostgreSQL it follows the
 * database's clock).
 */
export class ProcessClockOff extends Clock {
  /** How much of the process's time the monotonic clock has missed, as over a suspended machine. */
  suspendedMs = 0;

  constructor(public offMs: number) {
    super();
  }

  override processTime(): number {
    return Date.now() + this.offMs;
  }

  override monotonicTime(): number {
    return performance.now() - this.suspendedMs;
  }
}
