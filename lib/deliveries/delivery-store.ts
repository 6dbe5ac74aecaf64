import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { generateId } from '../identifiers/generate-id.js';
import { WebhookEndpointEntity } from '../webhook-endpoints/webhook-endpoint.entity.js';
import { dropPendingRetries } from './drop-pending-retries.js';
import type { DeliveryErrorCode, DeliveryStatus } from './delivery.entity.js';
import { SqlDialect } from '../database/sql-dialect.js';

const DELIVERIES = 'interview_webhook_deliveries';
const ATTEMPTS = 'interview_webhook_attempts';
const ENDPOINTS = 'interview_webhook_endpoints';

/** What a delivery is sent to; null once the endpoint is deleted. */
export interface DeliveryTarget {
  url: string;
  secret: string;
  status: string;
}

/** A delivery this worker now holds, until `lockedUntil`, with what it needs to be sent. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  /** Attempts made before this one. */
  attempt: number;
  lockedUntil: Date;
  target: DeliveryTarget | null;
  /** The event body; null once the event is purged. */
  payload: string | null;
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

/** A statement and its bind values; `sql` is empty when there is nothing to write. */
interface Statement {
  sql: string;
  params: unknown[];
}

interface ClaimRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number | string;
  payload: string | null;
  url: string | null;
  secret: string | null;
  endpoint_status: string | null;
}

/**
 * The delivery engine's database work, a few statements per batch rather than per delivery. On
 * PostgreSQL a batch costs two: the claim (which returns the endpoints and event bodies too) and
 * the record (attempts, deliveries and endpoint streaks in one statement) while nothing fails.
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
   *
   * The state test is wrapped in `IS TRUE` so that no index can serve it and the primary key
   * drives the claim: written plainly, a planner whose statistics predate a burst (a new table,
   * a quiet one) picks the due index and scans every pending delivery for each batch of ids.
   */
  async claim(ids: readonly string[], now: Date, lockedUntil: Date): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const s = this.sql;
    const rows = s.postgres
      ? await this.records<ClaimRow>(
          `UPDATE ${DELIVERIES} SET locked_until = $1
           FROM (SELECT d.id, ev.payload, w.url, w.secret, w.status AS endpoint_status
                 FROM ${DELIVERIES} d
                 LEFT JOIN interview_events ev ON ev.id = d.event_id
                 LEFT JOIN ${ENDPOINTS} w ON w.id = d.endpoint_id
                 WHERE d.id IN (${s.list(3, ids.length)})
                   AND (d.status = 'pending' AND d.next_attempt_at <= $2
                        AND (d.locked_until IS NULL OR d.locked_until < $2)) IS TRUE
                 FOR UPDATE OF d SKIP LOCKED) due
           WHERE ${DELIVERIES}.id = due.id
           RETURNING ${DELIVERIES}.id, endpoint_id, event_id, attempt, due.payload, due.url, due.secret, due.endpoint_status`,
          [s.time(lockedUntil), s.time(now), ...ids],
        )
      : await this.claimOnSqlite(ids, now, lockedUntil);
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      eventId: row.event_id,
      attempt: Number(row.attempt),
      lockedUntil,
      target:
        row.url !== null && row.secret !== null && row.endpoint_status !== null
          ? { url: row.url, secret: row.secret, status: row.endpoint_status }
          : null,
      payload: row.payload,
    }));
  }

  /** SQLite's RETURNING sees only the updated table: the claim, then one look-up of the rest. */
  private async claimOnSqlite(ids: readonly string[], now: Date, lockedUntil: Date): Promise<ClaimRow[]> {
    const s = this.sql;
    const claimed = await this.records<{ id: string }>(
      `UPDATE ${DELIVERIES} SET locked_until = ? WHERE id IN (${s.list(1, ids.length)}) AND status = 'pending'
         AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until < ?) RETURNING id`,
      [s.time(lockedUntil), ...ids, s.time(now), s.time(now)],
    );
    if (claimed.length === 0) return [];
    return this.dataSource.query(
      `SELECT d.id, d.endpoint_id, d.event_id, d.attempt, ev.payload, w.url, w.secret, w.status AS endpoint_status
       FROM ${DELIVERIES} d
       LEFT JOIN interview_events ev ON ev.id = d.event_id
       LEFT JOIN ${ENDPOINTS} w ON w.id = d.endpoint_id
       WHERE d.id IN (${s.list(1, claimed.length)})`,
      claimed.map((row) => row.id),
    );
  }

  /**
   * Writes a batch of outcomes in one transaction. A delivery is only updated while this worker's
   * claim still holds it. One dropped meanwhile (endpoint disabled or deleted) still counts the
   * attempt the receiver got, but stays failed with its reason unless that attempt succeeded.
   */
  async record(outcomes: readonly DeliveryOutcome[], now: Date, disableAfterMs: number): Promise<void> {
    if (outcomes.length === 0) return;
    const failed = outcomes.some((outcome) => outcome.attempted && outcome.status !== 'succeeded');
    if (this.sql.postgres && !failed) {
      // One statement is atomic by itself: no transaction round trips on the common path.
      const attempts = this.attemptsInsert(outcomes, now, 0);
      const update = this.deliveriesUpdate(outcomes, now, attempts.params.length);
      const healed = this.streaksCleared(outcomes, attempts.params.length + update.params.length);
      const ctes = [
        update.values,
        attempts.sql && `recorded AS (${attempts.sql})`,
        healed.sql && `healed AS (${healed.sql})`,
      ]
        .filter(Boolean)
        .join(', ');
      await this.dataSource.query(`WITH ${ctes} ${update.sql}`, [
        ...attempts.params,
        ...update.params,
        ...healed.params,
      ]);
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      for (const statement of [this.attemptsInsert(outcomes, now, 0), this.streaksCleared(outcomes, 0)]) {
        if (statement.sql) await manager.query(statement.sql, statement.params);
      }
      const update = this.deliveriesUpdate(outcomes, now, 0);
      await manager.query(`WITH ${update.values} ${update.sql}`, update.params);
      await this.trackFailingStreaks(manager, outcomes, now, disableAfterMs);
    });
  }

  /** Pending deliveries that are overdue and held by nobody: work whose queue job was lost. */
  async overdue(before: Date, now: Date, limit: number): Promise<{ id: string }[]> {
    const s = this.sql;
    return this.dataSource.query(
      `SELECT id FROM ${DELIVERIES} WHERE status = 'pending' AND next_attempt_at <= ${s.param(1)} AND (locked_until IS NULL OR locked_until < ${s.param(2)}) ORDER BY next_attempt_at LIMIT ${Number(limit)}`,
      [s.time(before), s.time(now)],
    );
  }

  /** The attempts made, as one multi-row INSERT (empty when nothing was sent). */
  private attemptsInsert(outcomes: readonly DeliveryOutcome[], now: Date, offset: number): Statement {
    const attempted = outcomes.filter((outcome) => outcome.attempted);
    if (attempted.length === 0) return { sql: '', params: [] };
    const s = this.sql;
    const params: unknown[] = [];
    const rows = attempted.map((outcome) => {
      const at = offset + params.length;
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
      return `(${s.param(at + 1)}, ${s.param(at + 2)}, ${s.intParam(at + 3)}, ${s.intParam(at + 4)}, ${s.param(at + 5)}, ${s.param(at + 6)}, ${s.intParam(at + 7)}, ${s.timeParam(at + 8)})`;
    });
    return {
      sql: `INSERT INTO ${ATTEMPTS} (id, delivery_id, attempt, response_status, response_body, error, duration_ms, created_at) VALUES ${rows.join(', ')}`,
      params,
    };
  }

  /**
   * The deliveries' new state: `values` is the CTE of outcomes, `sql` the UPDATE reading it. A
   * delivery is only updated while this worker's claim still holds it; one dropped meanwhile
   * still counts the attempt, but keeps its reason unless that attempt succeeded.
   */
  private deliveriesUpdate(
    outcomes: readonly DeliveryOutcome[],
    now: Date,
    offset: number,
  ): { values: string; sql: string; params: unknown[] } {
    const s = this.sql;
    const params: unknown[] = [];
    const rows = outcomes.map((outcome) => {
      const at = offset + params.length;
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
    const nowParam = s.timeParam(offset + params.length);
    const live = `(${DELIVERIES}.status = 'pending' OR o.status = 'succeeded')`;
    return {
      values: `o(id, claim, status, attempt, response_status, response_body, error, duration_ms, next_attempt_at) AS (VALUES ${rows.join(', ')})`,
      sql: `UPDATE ${DELIVERIES} SET
         status = CASE WHEN ${live} THEN o.status ELSE ${DELIVERIES}.status END,
         error = CASE WHEN ${live} THEN o.error ELSE ${DELIVERIES}.error END,
         next_attempt_at = CASE WHEN ${DELIVERIES}.status = 'pending' THEN o.next_attempt_at ELSE NULL END,
         attempt = o.attempt, response_status = o.response_status, response_body = o.response_body,
         duration_ms = o.duration_ms, locked_until = NULL, updated_at = ${nowParam}
       FROM o WHERE ${DELIVERIES}.id = o.id AND ${DELIVERIES}.locked_until = o.claim`,
      params,
    };
  }

  /** Any success ends its endpoint's failing streak (empty when nothing succeeded). */
  private streaksCleared(outcomes: readonly DeliveryOutcome[], offset: number): Statement {
    const ids = [
      ...new Set(
        outcomes.filter((o) => o.attempted && o.status === 'succeeded').map((o) => o.delivery.endpointId),
      ),
    ];
    if (ids.length === 0) return { sql: '', params: [] };
    return {
      sql: `UPDATE ${ENDPOINTS} SET failing_since = NULL WHERE failing_since IS NOT NULL AND id IN (${this.sql.list(offset + 1, ids.length)})`,
      params: ids,
    };
  }

  /**
   * An endpoint's failing streak starts at its first failed attempt (and ends with any success);
   * one that has failed everything for `disableAfterMs` is disabled and its retries dropped.
   */
  private async trackFailingStreaks(
    manager: EntityManager,
    outcomes: readonly DeliveryOutcome[],
    now: Date,
    disableAfterMs: number,
  ): Promise<void> {
    const attempted = outcomes.filter((outcome) => outcome.attempted);
    const failed = new Set(
      attempted.filter((o) => o.status !== 'succeeded').map((o) => o.delivery.endpointId),
    );
    attempted.filter((o) => o.status === 'succeeded').forEach((o) => failed.delete(o.delivery.endpointId));
    if (failed.size === 0) return;
    const s = this.sql;
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
        { status: 'disabled', disabledReason: 'failing_for_too_long', updatedAt: now },
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
