import { Injectable } from '@nestjs/common';

/** A time in Unix milliseconds, and this process's monotonic time when it was read. */
export interface ClockReading {
  timeMs: number;
  monotonicMs: number;
}

/**
 * The module's one source of time, so that every timestamp of one operation agrees. On PostgreSQL
 * it counts on with the monotonic clock from its last reading (ClockAlignment): the database's time
 * when this process's clock is off, the process's own when they agree. Claims, leases and due times
 * written by one process are read by others, so a process whose clock is off, or is stepped
 * between two readings (NTP, a resumed machine), must not judge them by it.
 */
@Injectable()
export class Clock {
  private reading: ClockReading | null = null;

  now(): Date {
    const reading = this.reading;
    return new Date(
      reading ? reading.timeMs + (performance.now() - reading.monotonicMs) : this.processTime(),
    );
  }

  /** This process's own time, in Unix milliseconds. */
  processTime(): number {
    return Date.now();
  }

  /** How far `now` is from the process's time. */
  get offset(): number {
    return this.now().getTime() - this.processTime();
  }

  /** Counts on from `reading` from now on. */
  follow(reading: ClockReading): void {
    this.reading = reading;
  }
}
