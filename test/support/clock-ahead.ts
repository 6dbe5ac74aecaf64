import { Clock } from '../../lib/clock/clock.js';

/** A clock `aheadMs` in the future: claims expire and deliveries fall overdue without waiting. */
export class ClockAhead extends Clock {
  constructor(private readonly aheadMs: number) {
    super();
  }

  override now(): Date {
    return new Date(Date.now() + this.aheadMs);
  }
}
