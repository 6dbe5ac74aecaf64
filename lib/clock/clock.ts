import { Injectable } from '@nestjs/common';
import { CLOCK_TOLERANCE_MS } from '../interview-api.tuning.js';

/**
 * A reading of the database's clock: its time when this process's was off from it (null when they
 * agreed), and the process's and the monotonic time then.
 */
export interface ClockReading {
  databaseMs: number | null;
  processMs: number;
  monotonicMs: number;
}

/**
 * The module's one source of time, so that every timestamp of one operation agrees. On PostgreSQL
 * it follows the database's clock when this process's is off (ClockAlignment): claims, leases and
 * due times written by one process are read by others, so a process whose own clock is off must not
 * judge them by it. While it follows, it counts on from the last reading with the monotonic clock,
 * so a correction of the process's clock (NTP stepping it right) moves nothing. When the process's
 * clock and the monotonic one move apart after a reading (a step of the one, a suspended machine,
 * where the other stops), it asks for a new reading at once.
 */
@Injectable()
export class Clock {
  private reading: ClockReading | null = null;
  private onDrift: (() => void) | null = null;

  now(): Date {
    const reading = this.reading;
    const processMs = this.processTime();
    if (!reading) return new Date(processMs);
    const elapsed = this.monotonicTime() - reading.monotonicMs;
    if (this.onDrift && Math.abs(processMs - reading.processMs - elapsed) > CLOCK_TOLERANCE_MS) {
      const drifted = this.onDrift;
      this.onDrift = null;
      drifted();
    }
    return new Date(reading.databaseMs === null ? processMs : reading.databaseMs + elapsed);
  }

  /** This process's own time, in Unix milliseconds. */
  processTime(): number {
    return Date.now();
  }

  /** This process's monotonic time, in milliseconds from an arbitrary origin. */
  monotonicTime(): number {
    return performance.now();
  }

  /** Keeps to `reading` from now on; `onDrift` once if the clocks move apart after it. */
  follow(reading: ClockReading, onDrift: () => void): void {
    this.reading = reading;
    this.onDrift = onDrift;
  }
}
