import { Injectable } from '@nestjs/common';

/** The database's time, and this process's monotonic time when it was read. */
export interface DatabaseReading {
  databaseMs: number;
  monotonicMs: number;
}

/**
 * The module's one source of time, so that every timestamp of one operation agrees. On PostgreSQL
 * it follows the database's clock when this process's is off (ClockAlignment): claims, leases and
 * due times written by one process are read by others, so a process whose own clock is off must not
 * judge them by it. While it follows, it counts on from the last reading with the monotonic clock,
 * so a correction of the process's clock between readings (NTP stepping it right) moves nothing.
 * Only then: the monotonic clock stops while the machine is suspended, the process's does not.
 */
@Injectable()
export class Clock {
  private reading: DatabaseReading | null = null;

  now(): Date {
    const reading = this.reading;
    return new Date(
      reading ? reading.databaseMs + (performance.now() - reading.monotonicMs) : this.processTime(),
    );
  }

  /** This process's own time, in Unix milliseconds. */
  processTime(): number {
    return Date.now();
  }

  /** How far `now` is from the process's time: 0 while they agree. */
  get offset(): number {
    return this.reading ? this.now().getTime() - this.processTime() : 0;
  }

  /** Follows the database's time from `reading` on, or the process's own again (null). */
  follow(reading: DatabaseReading | null): void {
    this.reading = reading;
  }
}
