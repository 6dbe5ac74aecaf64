import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from './clock.js';
import { every } from './every.js';

/**
 * Offsets up to this are left alone (NTP keeps clocks far closer, and a claim takes a delivery up to
 * 1 s before it is due); so is a reading whose round trip took longer, as too uncertain.
 */
export const CLOCK_TOLERANCE_MS = 250;
const INTERVAL_MS = 60_000;

interface DatabaseTime {
  ms: number | string;
}

/**
 * Keeps the module's Clock on PostgreSQL's clock: at start and every minute it reads the
 * database's time and, when this process's clock is off by more than the tolerance, makes the
 * Clock count on from that reading. A worker whose clock ran a minute ahead would otherwise take over the
 * live claims of other workers (their leases over by its clock) and send those deliveries twice;
 * one behind would leave deliveries due by every other process's clock unclaimed. SQLite has no
 * clock of its own: its processes share their machine's.
 */
@Injectable()
export class ClockAlignment implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private stop: (() => void) | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.dataSource.options.type !== 'postgres') return;
    const failed = (error: unknown): void =>
      this.logger.warn(`Could not read the database's clock: ${String(error)}`);
    await this.align().catch(failed);
    this.stop = every(INTERVAL_MS, () => this.align(), failed);
  }

  onApplicationShutdown(): void {
    this.stop?.();
  }

  /**
   * Reads the database's clock once; answers how far the module's time is from the process's from
   * now on (0 when they agree within the tolerance).
   */
  async align(): Promise<number> {
    const previous = this.clock.offset;
    const before = performance.now();
    const processBefore = this.clock.processTime();
    const [row] = await this.dataSource.query<DatabaseTime[]>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
    );
    const after = performance.now();
    if (after - before > CLOCK_TOLERANCE_MS) return previous;
    const databaseMs = Number(row.ms);
    const measured = Math.round(databaseMs - (processBefore + this.clock.processTime()) / 2);
    if (Math.abs(measured) <= CLOCK_TOLERANCE_MS) {
      this.clock.follow(null);
      if (previous !== 0) this.logger.log("This process's clock agrees with the database's again.");
      return 0;
    }
    // Taken at every reading while the clocks disagree, so the monotonic clock's drift never adds up.
    this.clock.follow({ databaseMs, monotonicMs: (before + after) / 2 });
    if (Math.abs(measured - previous) > CLOCK_TOLERANCE_MS) {
      const seconds = (Math.abs(measured) / 1000).toFixed(1);
      this.logger.warn(
        `This process's clock is ${seconds} s ${measured < 0 ? 'ahead of' : 'behind'} the database's: ` +
          "the module's times follow the database's.",
      );
    }
    return measured;
  }
}
