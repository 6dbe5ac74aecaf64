import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import { generateId } from '../identifiers/generate-id.js';
import { EventEntity } from '../events/event.entity.js';
import { WebhookEndpointEntity } from '../webhook-endpoints/webhook-endpoint.entity.js';
import { dropPendingRetries } from './drop-pending-retries.js';
import type { DeliveryErrorCode, DeliveryStatus } from './delivery.entity.js';
import { SqlDialect } from './sql-dialect.js';

const DELIVERIES = 'interview_webhook_deliveries';
const ATTEMPTS = 'interview_webhook_attempts';
const ENDPOINTS = 'interview_webhook_endpoints';

/** A delivery this worker now holds, until `lockedUntil`. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  /** Attempts made before this one. */
  attempt: number;
  lockedUntil: Date;
}

/** The result of one attempt, and the delivery state it leads to. */
export interface DeliveryOutcome {
  delivery: ClaimedDelivery;
  /** False when nothing was sent (the endpoint is gone or disabled). */
  attempted: boolean;
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  error: DeliveryErrorCode | null;
  durationMs: number | null;
  nextAttemptAt: Date | null;
}

interface ClaimRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number | string;
}

/**
 * The delivery engine's database work, a few statements per batch rather than per delivery: one
 * claim, one load of endpoints and one of events, one insert of attempts, one update of deliveries.
 */
@Injectable()
export class DeliveryStore {
  private readonly sql: SqlDialect;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sql = new SqlDialect(dataSource);
  }

  /**
   * Takes the deliveries of a job that are still due and not held by another worker. A duplicate
   * or stale job finds nothing to claim; a claim of a dead worker expires at `lockedUntil`.
   */
  async claim(ids: readonly string[], now: Date, lockedUntil: Date): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const s = this.sql;
    const due = `status = 'pending' AND next_attempt_at <= ${s.param(2)} AND (locked_until IS NULL OR locked_until < ${s.param(2)})`;
    const idList = s.postgres ? s.list(3, ids.length) : s.list(1, ids.length);
    const sql = s.postgres
      ? `UPDATE ${DELIVERIES} SET locked_until = $1 WHERE id IN (SELECT id FROM ${DELIVERIES} WHERE id IN (${idList}) AND ${due} FOR UPDATE SKIP LOCKED) RETURNING id, endpoint_id, event_id, attempt`
      : `UPDATE ${DELIVERIES} SET locked_until = ? WHERE id IN (${idList}) AND status = 'pending' AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until < ?) RETURNING id, endpoint_id, event_id, attempt`;
    const params = s.postgres
      ? [s.time(lockedUntil), s.time(now), ...ids]
      : [s.time(lockedUntil), ...ids, s.time(now), s.time(now)];
    const rows = await this.records<ClaimRow>(sql, params);
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      attempt: Number(row.attempt),
      lockedUntil,
    }));
  }

  endpoints(ids: readonly string[]): Promise<WebhookEndpointEntity[]> {
    return this.dataSource.getRepository(WebhookEndpointEntity).findBy({ id: In([...new Set(ids)]) });
  }

  events(ids: readonly string[]): Promise<Pick<EventEntity, 'id' | 'payload'>[]> {
    return this.dataSource
      .getRepository(EventEntity)
      .find({ select: { id: true, payload: true }, where: { id: In([...new Set(ids)]) } });
  }

  /**
   * Writes a batch of outcomes in one transaction. A delivery is only updated while this worker's
   * claim still holds it. One dropped meanwhile (endpoint disabled or deleted) still counts the
   * attempt the receiver got, but stays failed with its reason unless that attempt succeeded.
   */
  async record(outcomes: readonly DeliveryOutcome[], now: Date, disableAfterMs: number): Promise<void> {
    if (outcomes.length === 0) return;
    await this.dataSource.transaction(async (manager) => {
      await this.insertAttempts(manager, outcomes, now);
      await this.updateDeliveries(manager, outcomes, now);
      await this.trackEndpointHealth(manager, outcomes, now, disableAfterMs);
    });
  }

  /** Releases claims without recording an attempt (graceful shutdown before sending). */
  async release(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const s = this.sql;
    await this.dataSource.query(
      `UPDATE ${DELIVERIES} SET locked_until = NULL WHERE id IN (${s.list(1, deliveries.length)})`,
      deliveries.map((delivery) => delivery.id),
    );
  }

  /** Pending deliveries that are overdue and held by nobody: work whose queue job was lost. */
  async overdue(before: Date, now: Date, limit: number): Promise<{ id: string }[]> {
    const s = this.sql;
    return this.dataSource.query(
      `SELECT id FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= ${s.param(1)} AND (locked_until IS NULL OR locked_until < ${s.param(2)}) ORDER BY next_attempt_at LIMIT ${Number(limit)}`,
      [s.time(before), s.time(now)],
    );
  }

  private async insertAttempts(
    manager: EntityManager,
    outcomes: readonly DeliveryOutcome[],
    now: Date,
  ): Promise<void> {
    const attempted = outcomes.filter((outcome) => outcome.attempted);
    if (attempted.length === 0) return;
    const s = this.sql;
    const params: unknown[] = [];
    const rows = attempted.map((outcome) => {
      const at = params.length;
      params.push(
        generateId('att', now),
        outcome.delivery.id,
        outcome.delivery.attempt + 1,
        outcome.responseStatus,
        outcome.responseBody,
        outcome.error,
        outcome.durationMs ?? 0,
        s.time(now),
      );
      return `(${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => s.param(at + i)).join(', ')})`;
    });
    await manager.query(
      `INSERT INTO ${ATTEMPTS} (id, delivery_id, attempt, response_status, response_body, error, duration_ms, created_at) VALUES ${rows.join(', ')}`,
      params,
    );
  }

  private async updateDeliveries(
    manager: EntityManager,
    outcomes: readonly DeliveryOutcome[],
    now: Date,
  ): Promise<void> {
    const s = this.sql;
    const params: unknown[] = [];
    const rows = outcomes.map((outcome) => {
      const at = params.length;
      params.push(
        outcome.delivery.id,
        s.time(outcome.delivery.lockedUntil),
        outcome.status,
        outcome.attempted ? outcome.delivery.attempt + 1 : outcome.delivery.attempt,
        outcome.responseStatus,
        outcome.responseBody,
        outcome.error,
        outcome.durationMs,
        s.time(outcome.nextAttemptAt),
      );
      return `(${s.param(at + 1)}, ${s.timeParam(at + 2)}, ${s.param(at + 3)}, ${s.intParam(at + 4)}, ${s.intParam(at + 5)}, ${s.param(at + 6)}, ${s.param(at + 7)}, ${s.intParam(at + 8)}, ${s.timeParam(at + 9)})`;
    });
    params.push(s.time(now));
    const nowParam = s.timeParam(params.length);
    // `live`: the delivery is still this outcome's to decide (not dropped meanwhile, or delivered).
    const live = `(${DELIVERIES}.status = 'pending' OR o.status = 'succeeded')`;
    await manager.query(
      `WITH o(id, claim, status, attempt, response_status, response_body, error, duration_ms, next_attempt_at) AS (VALUES ${rows.join(', ')})
       UPDATE ${DELIVERIES} SET
         status = CASE WHEN ${live} THEN o.status ELSE ${DELIVERIES}.status END,
         error = CASE WHEN ${live} THEN o.error ELSE ${DELIVERIES}.error END,
         next_attempt_at = CASE WHEN ${DELIVERIES}.status = 'pending' THEN o.next_attempt_at ELSE NULL END,
         attempt = o.attempt, response_status = o.response_status, response_body = o.response_body,
         duration_ms = o.duration_ms, locked_until = NULL, updated_at = ${nowParam}
       FROM o WHERE ${DELIVERIES}.id = o.id AND ${DELIVERIES}.locked_until = o.claim`,
      params,
    );
  }

  /**
   * An endpoint's failing streak starts at its first failed attempt and ends with any success;
   * one that has failed everything for `disableAfterMs` is disabled and its retries dropped.
   */
  private async trackEndpointHealth(
    manager: EntityManager,
    outcomes: readonly DeliveryOutcome[],
    now: Date,
    disableAfterMs: number,
  ): Promise<void> {
    const attempted = outcomes.filter((outcome) => outcome.attempted);
    const succeeded = new Set(
      attempted.filter((o) => o.status === 'succeeded').map((o) => o.delivery.endpointId),
    );
    const failed = new Set(
      attempted.filter((o) => o.status !== 'succeeded').map((o) => o.delivery.endpointId),
    );
    succeeded.forEach((id) => failed.delete(id));
    const s = this.sql;
    if (succeeded.size > 0) {
      await manager.query(
        `UPDATE ${ENDPOINTS} SET failing_since = NULL WHERE failing_since IS NOT NULL AND id IN (${s.list(1, succeeded.size)})`,
        [...succeeded],
      );
    }
    if (failed.size === 0) return;
    const ids = [...failed];
    await manager.query(
      `UPDATE ${ENDPOINTS} SET failing_since = ${s.param(1)} WHERE failing_since IS NULL AND id IN (${s.list(2, ids.length)})`,
      [s.time(now), ...ids],
    );
    const expired: { id: string }[] = await manager.query(
      `SELECT id FROM ${ENDPOINTS} WHERE status = 'enabled' AND failing_since <= ${s.param(1)} AND id IN (${s.list(2, ids.length)})`,
      [s.time(new Date(now.getTime() - disableAfterMs)), ...ids],
    );
    for (const { id } of expired) {
      await manager.update(
        WebhookEndpointEntity,
        { id },
        {
          status: 'disabled',
          disabledReason: 'failing_for_too_long',
          updatedAt: now,
        },
      );
      await dropPendingRetries(manager, id, 'endpoint_disabled', now);
    }
  }

  private async records<T>(sql: string, params: unknown[]): Promise<T[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      return (result.records ?? []) as T[];
    } finally {
      await runner.release();
    }
  }
}
