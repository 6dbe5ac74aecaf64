import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../clock/clock.js';
import { PurgeSchedule } from '../clock/purge-schedule.js';
import { SqlDialect } from '../database/sql-dialect.js';
import { idTimePrefix } from '../identifiers/generate-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { inTransaction } from '../database/in-transaction.js';
import { ATTEMPTS_TABLE as ATTEMPTS } from '../deliveries/attempt.entity.js';
import { DELIVERIES_TABLE as DELIVERIES } from '../deliveries/delivery.entity.js';
import { PENDING_TABLE as PENDING } from '../deliveries/pending-delivery.entity.js';
import { EVENTS_TABLE as EVENTS } from './event.entity.js';

/** Events live for `eventRetentionMs` (30 days by default); then they and their deliveries go. */
@Injectable()
export class EventRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sql: SqlDialect;
  private readonly schedule = new PurgeSchedule('Event purge', () => this.purge());

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {
    this.sql = new SqlDialect(dataSource);
  }

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
  async purge(): Promise<number> {
    const cutoff = this.visibleFromId();
    const p = this.sql.param(1);
    const expired = `SELECT id FROM ${EVENTS} WHERE id < ${p}`;
    const expiredDeliveries = `SELECT id FROM ${DELIVERIES} WHERE event_id IN (${expired})`;
    return inTransaction(this.dataSource.manager, async (manager) => {
      // PostgreSQL: a worker may be recording an attempt of an expiring delivery (a replay, say)
      // while this runs. Locked first, each such delivery is either recorded before (its attempt
      // and schedule row committed, so the statements below see them) or after, finding it gone
      // and adding nothing. Deleted first without the lock, a record committed between these
      // statements left an attempt or schedule row of a delivery no longer there. In id order, as
      // a record and a drop lock theirs: locked in the order its plan reads them, a purge could
      // hold one delivery a record waits for while waiting for another the record holds. SQLite
      // runs the module's transactions one at a time.
      if (this.sql.postgres) {
        await manager.query(`SELECT COUNT(*) FROM (${expiredDeliveries} ORDER BY id FOR UPDATE) AS locked`, [
          cutoff,
        ]);
      }
      await manager.query(`DELETE FROM ${ATTEMPTS} WHERE delivery_id IN (${expiredDeliveries})`, [cutoff]);
      await manager.query(`DELETE FROM ${PENDING} WHERE delivery_id IN (${expiredDeliveries})`, [cutoff]);
      await manager.query(`DELETE FROM ${DELIVERIES} WHERE event_id IN (${expired})`, [cutoff]);
      const [{ count }] = (await manager.query(`SELECT COUNT(*) AS count FROM ${EVENTS} WHERE id < ${p}`, [
        cutoff,
      ])) as { count: number | string }[];
      await manager.query(`DELETE FROM ${EVENTS} WHERE id < ${p}`, [cutoff]);
      return Number(count);
    });
  }

  beforeApplicationShutdown(): void {
    this.schedule.stop();
  }
}
