import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import { Clock } from '../clock/clock.js';
import { PurgeSchedule } from '../clock/purge-schedule.js';
import { idTimePrefix } from '../identifiers/generate-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { purgeExpiredEvents } from '../delivery-store/expired-events.js';

/** Events live for `eventRetentionMs` (30 days by default); then they and their deliveries go. */
@Injectable()
export class EventRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly schedule = new PurgeSchedule('Event purge', () => this.purge());

  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  /**
   * The oldest creation time still visible. A retention reaching back before the Unix epoch keeps
   * every event: no id encodes an earlier time, and every event is younger.
   */
  horizon(): Date {
    return new Date(Math.max(0, this.clock.now().getTime() - this.options.eventRetentionMs));
  }

  /**
   * The lowest id of a visible event: an event's id begins with its creation time and ids sort by
   * it, so the expired ones, and their deliveries, are a range of ids below this.
   */
  visibleFromId(): string {
    return idTimePrefix('evt', this.horizon());
  }

  onApplicationBootstrap(): void {
    if (this.options.worker) this.schedule.start();
  }

  /**
   * Deletes expired events with their deliveries and attempts; answers how many events went. The
   * expired events are a range of the primary key (see `visibleFromId`), which spares every
   * publish an index on the creation time.
   */
  purge(): Promise<number> {
    return purgeExpiredEvents(this.dataSource.manager, this.visibleFromId());
  }

  beforeApplicationShutdown(): void {
    this.schedule.stop();
  }
}
