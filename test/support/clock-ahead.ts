import { Clock } from '../../lib/clock/clock.js';

/**
 * A clock `aheadMs` in the future: claims expire and deliveries fall overdue without waiting. A test
 * may move it on meanwhile.
 */
export class ClockAhead extends Clock {
  constructor(public aheadMs: number) {
    super();
  }

  override now(): Date {
    return new Date(Date.now() + this.aheadMs);
  }
}
