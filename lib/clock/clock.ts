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
 * The module's one source of time. On PostgreSQL it follows the database's clock when this process's
 * is off (ClockAlignment), counting on with the monotonic clock, and asks for a new reading at once
 * when the two move apart (a stepped clock, a suspended machine).
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
