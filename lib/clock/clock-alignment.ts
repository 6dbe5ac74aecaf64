import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import { Clock } from './clock.js';
import { every } from './every.js';
import { CLOCK_ALIGNMENT_INTERVAL_MS, CLOCK_TOLERANCE_MS } from '../interview-api.tuning.js';

interface DatabaseTime {
  ms: number | string;
}

/**
 * Keeps the module's Clock on PostgreSQL's, read at start, every minute and on drift (past the
 * tolerance the Clock counts on from the reading), so a worker whose clock runs ahead takes no live
 * claim and one behind leaves no due delivery unclaimed. SQLite processes share their machine's clock.
 */
@Injectable()
export class ClockAlignment implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private stop: (() => void) | null = null;
  private aligning: Promise<unknown> | null = null;
  /** The database's time less the process's at the last reading that could tell; 0 within the tolerance. */
  private offMs = 0;

  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.dataSource.options.type !== 'postgres') return;
    await this.realign();
    // realign logs its own failures.
    this.stop = every(
      CLOCK_ALIGNMENT_INTERVAL_MS,
      () => this.realign(),
      () => undefined,
    );
  }

  onApplicationShutdown(): void {
    this.stop?.();
  }

  /** A reading now, unless one is under way; a failure is logged. */
  private realign(): Promise<unknown> {
    this.aligning ??= this.align()
      .catch((error: unknown) => this.logger.warn(`Could not read the database's clock: ${String(error)}`))
      .finally(() => (this.aligning = null));
    return this.aligning;
  }

  /**
   * Reads the database's clock once; answers how far the module's time is from the process's from
   * now on (0 when they agree within the tolerance).
   */
  async align(): Promise<number> {
    const previous = this.offMs;
    const before = this.clock.monotonicTime();
    const processBefore = this.clock.processTime();
    const [row] = await this.dataSource.query<DatabaseTime[]>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
    );
    const after = this.clock.monotonicTime();
    if (after - before > CLOCK_TOLERANCE_MS) return previous;
    const processMs = (processBefore + this.clock.processTime()) / 2;
    const databaseMs = Number(row.ms);
    const measured = Math.round(databaseMs - processMs);
    const agree = Math.abs(measured) <= CLOCK_TOLERANCE_MS;
    this.offMs = agree ? 0 : measured;
    this.clock.follow(
      { databaseMs: agree ? null : databaseMs, processMs, monotonicMs: (before + after) / 2 },
      () => void this.realign(),
    );
    if (agree) {
      if (previous !== 0) this.logger.log("This process's clock agrees with the database's again.");
    } else if (Math.abs(measured - previous) > CLOCK_TOLERANCE_MS) {
      const seconds = (Math.abs(measured) / 1000).toFixed(1);
      this.logger.warn(
        `This process's clock is ${seconds} s ${measured < 0 ? 'ahead of' : 'behind'} the database's: ` +
          "the module's times follow the database's.",
      );
    }
    return this.offMs;
  }
}
