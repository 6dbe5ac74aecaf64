import { Injectable } from '@nestjs/common';

/**
 * The module's one source of time, so that every timestamp of one operation agrees. On PostgreSQL
 * it follows the database's clock (ClockAlignment): claims, leases and due times written by one
 * process are read by others, so a process whose own clock is off must not judge them by it.
 */
@Injectable()
export class Clock {
  private toDatabaseMs = 0;

  now(): Date {
    return new Date(this.processTime() + this.toDatabaseMs);
  }

  /** This process's own time, in Unix milliseconds. */
  processTime(): number {
    return Date.now();
  }

  /** What `now` adds to the process's time to meet the database's: 0 while they agree. */
  get offset(): number {
    return this.toDatabaseMs;
  }

  follow(offsetMs: number): void {
    this.toDatabaseMs = offsetMs;
  }
}
