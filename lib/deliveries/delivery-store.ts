import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import {
  ENDPOINTS_TABLE as ENDPOINTS,
  WebhookEndpointEntity,
  type WebhookEndpointStatus,
} from '../webhook-endpoints/webhook-endpoint.entity.js';
import { dropPendingRetries } from './drop-pending-retries.js';
import { IN_ID_ORDER } from './delivery-lock-order.js';
import { BinaryArray } from '../database/binary-array.js';
import { retryOnDeadlock } from '../database/deadlock-retry.js';
import { queryPrepared } from '../database/prepared-statement.js';
import { returnedRows } from '../database/returned-rows.js';
import { SQLITE_MAX_BOUND_VALUES, SqlDialect } from '../database/sql-dialect.js';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryTarget } from './claimed-delivery.js';
import type { FailingStreakRule } from './failing-streak.js';
import type { Statement } from '../database/statement.js';
import { DELIVERIES_TABLE as DELIVERIES } from './delivery.entity.js';
import { EVENTS_TABLE as EVENTS } from '../events/event.entity.js';
import { recordStatements } from './outcome-statements.js';
import { PENDING_TABLE as PENDING } from './pending-delivery.entity.js';
import { renewalStatement } from './renewal-statement.js';
import { DUE_SKEW_ALLOWANCE_MS } from './claim-lease.js';
import { inTransaction } from '../database/in-transaction.js';

/** An endpoint the engine disabled, and why (its `disabled_reason`). */
export interface DisabledEndpoint {
  id: string;
  reason: 'endpoint_gone' | 'failing_for_too_long';
}

/** Ids per look-up of endpoints, well under either database's limit of bind parameters. */
const IDS_PER_LOOKUP = 500;

/**
 * An event's body in the first claimed row of each of its deliveries only (`payload` the body,
 * `event_id` the event): one event to 100 endpoints came back from the database, and was held
 * until sent, as 100 copies of its body. Nor in a row whose endpoint has no room in the worker
 * (`body_unread`): that delivery is given back unsent, and with large events to a slow endpoint
 * the bodies read only to be given back set the worker's peak memory. Rows that need the body come
 * first in each event's partition.
 */
const ONCE_PER_EVENT = `CASE WHEN body_unread THEN NULL
    WHEN row_number() OVER (PARTITION BY event_id ORDER BY body_unread) = 1 THEN payload END`;

/**
 * The claim on PostgreSQL ($1 the lease's end, $2 now, $3 the ids, $4 the latest due time taken, $5
 * the endpoints whose bodies are left unread). Each id is looked up on its
 * own, in a lateral subquery the planner cannot fold into a join, and the state test is wrapped in
 * `IS TRUE` so that no index can serve it: only the primary key drives the claim. Written as one
 * join, a planner whose statistics predate a burst (a new table, a quiet one, no autovacuum) scans
 * the whole table for each batch of ids, or every pending delivery through the due index. The
 * bodies are kept to one per event outside the update: a window function inside it keeps the
 * planner from folding the look-ups into the update's join, which then scans the table.
 */
export const CLAIM_ON_POSTGRES = `WITH claimed AS (
  UPDATE ${DELIVERIES} SET locked_until = $1, claimed_at = $2
  FROM (SELECT d.id, ev.payload, w.url, w.secret, w.status AS endpoint_status, w.retry_drops
        FROM unnest($3::text[]) AS wanted(id)
        CROSS JOIN LATERAL (
          SELECT id, event_id, endpoint_id FROM ${DELIVERIES}
          WHERE id = wanted.id
            AND (status = 'pending' AND next_attempt_at <= $4
                 AND (locked_until IS NULL OR locked_until < $2)) IS TRUE
          LIMIT 1 FOR UPDATE SKIP LOCKED) d
        LEFT JOIN ${EVENTS} ev ON ev.id = d.event_id
        LEFT JOIN ${ENDPOINTS} w ON w.id = d.endpoint_id) due
  WHERE ${DELIVERIES}.id = due.id
  RETURNING ${DELIVERIES}.id, endpoint_id, ${DELIVERIES}.account_id, ${DELIVERIES}.livemode, event_id, attempt,
    due.payload, endpoint_id = ANY($5::text[]) AS body_unread, due.url, due.secret, due.endpoint_status,
    due.retry_drops)
  SELECT id, endpoint_id, account_id, livemode, event_id, attempt, ${ONCE_PER_EVENT} AS payload, body_unread,
    url, secret, endpoint_status, retry_drops
  FROM claimed`;

/**
 * SQLite's look-up of `count` deliveries just claimed, with the rest, the bodies of `unread`
 * endpoints left unread: the parameters are those endpoints' ids, then the deliveries' (SQLite
 * binds them in the order of the text).
 */
export function claimedOnSqlite(sql: SqlDialect, count: number, unread: number): string {
  const unreadTest = unread > 0 ? `d.endpoint_id IN (${sql.list(1, unread)})` : '0';
  return `SELECT id, endpoint_id, account_id, livemode, event_id, attempt,
      ${ONCE_PER_EVENT} AS payload, body_unread,
      url, secret, endpoint_status, retry_drops
    FROM (SELECT d.id, d.endpoint_id, d.account_id, d.livemode, d.event_id, d.attempt, ev.payload,
            w.url, w.secret, w.status AS endpoint_status, w.retry_drops, ${unreadTest} AS body_unread
          FROM ${DELIVERIES} d
          LEFT JOIN ${EVENTS} ev ON ev.id = d.event_id
          LEFT JOIN ${ENDPOINTS} w ON w.id = d.endpoint_id
          WHERE d.id IN (${sql.list(unread + 1, count)}))`;
}

/**
 * An overdue delivery as the sweeper finds it, with its place in the schedule (`due` as the
 * database gave it); the last of a page is where the next page starts.
 */
export interface OverdueDelivery {
  id: string;
  due: Date | string;
}

/**
 * The sweeper's look-up: the schedule's overdue rows in due order (after `after`, when a sweep
 * goes on from an earlier page), each checked on its delivery in a correlated subquery, which
 * both databases run as a look-up by key for each row (as a join, PostgreSQL may scan every
 * delivery ever sent).
 */
export function overdueStatement(
  sql: SqlDialect,
  before: Date,
  now: Date,
  limit: number,
  after: OverdueDelivery | null = null,
): Statement {
  const p = (n: number): string => sql.param(n);
  const params: unknown[] = [sql.time(before), sql.time(before), sql.time(now)];
  if (after) params.push(after.due, after.due, after.id);
  return {
    sql: `SELECT p.delivery_id AS id, p.next_attempt_at AS due FROM ${PENDING} p
      WHERE p.next_attempt_at <= ${p(1)}
        AND (SELECT 1 FROM ${DELIVERIES} d WHERE d.id = p.delivery_id AND d.status = 'pending'
             AND d.next_attempt_at <= ${p(2)} AND (d.locked_until IS NULL OR d.locked_until < ${p(3)})) = 1
        ${after ? `AND (p.next_attempt_at > ${p(4)} OR (p.next_attempt_at = ${p(5)} AND p.delivery_id > ${p(6)}))` : ''}
      ORDER BY p.next_attempt_at, p.delivery_id LIMIT ${Number(limit)}`,
    params,
  };
}

interface ClaimRow {
  id: string;
  endpoint_id: string;
  account_id: string;
  /** A boolean on PostgreSQL, 1 or 0 on SQLite. */
  livemode: boolean | number;
  event_id: string;
  attempt: number | string;
  /**
   * The event's body in the first of its rows only (null in the others), and null once it is
   * purged or where it is left unread.
   */
  payload: string | null;
  /** Whether its endpoint's bodies were left unread: a boolean on PostgreSQL, 1 or 0 on SQLite. */
  body_unread: boolean | number;
  url: string | null;
  secret: string | null;
  endpoint_status: WebhookEndpointStatus | null;
  retry_drops: number | null;
}

/**
 * Disables the endpoint `where` names, if it is still enabled, and drops its pending retries, in
 * the caller's transaction; answers whether it did.
 */
async function disable(
  manager: EntityManager,
  where: { id: string; url?: string },
  reason: DisabledEndpoint['reason'],
  now: Date,
): Promise<boolean> {
  const { affected } = await manager
    .createQueryBuilder()
    .update(WebhookEndpointEntity)
    .set({ status: 'disabled', disabledReason: reason, updatedAt: now })
    .where({ ...where, status: 'enabled' })
    .execute();
  if (!affected) return false;
  await dropPendingRetries(manager, where.id, 'endpoint_disabled', now);
  return true;
}

/**
 * The delivery engine's database work, a few statements per batch rather than per delivery. On
 * PostgreSQL a batch costs one claim (which returns the endpoints and event bodies too), and a group
 * of outcomes one record (attempts, deliveries and endpoint streaks in one statement) while nothing
 * fails.
 */
@Injectable()
export class DeliveryStore {
  private readonly sql: SqlDialect;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.sql = new SqlDialect(dataSource);
  }

  /**
   * Takes the deliveries of a job that are still due (by `now`, give or take another process's
   * clock: DUE_SKEW_ALLOWANCE_MS) and not held by another worker, stamped `now`. A duplicate or
   * stale job finds nothing to claim; a claim of a dead worker expires at `lockedUntil`, unless
   * renewed.
   */
  async claim(
    ids: readonly string[],
    now: Date,
    lockedUntil: Date,
    unreadFor: readonly string[] = [],
  ): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const dueBy = new Date(now.getTime() + DUE_SKEW_ALLOWANCE_MS);
    const rows = this.sql.postgres
      ? await queryPrepared<ClaimRow>(this.dataSource.manager, CLAIM_ON_POSTGRES, [
          lockedUntil,
          now,
          new BinaryArray('text', ids),
          dueBy,
          new BinaryArray('text', unreadFor),
        ])
      : await this.claimOnSqlite(ids, now, lockedUntil, dueBy, unreadFor);
    const bodies = new Map<string, string>();
    for (const row of rows) if (row.payload !== null) bodies.set(row.event_id, row.payload);
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      tenant: `${row.account_id}:${Number(row.livemode) === 1 ? 'live' : 'test'}`,
      eventId: row.event_id,
      attempt: Number(row.attempt),
      claimedAt: now,
      target:
        row.url !== null && row.secret !== null && row.endpoint_status !== null
          ? {
              url: row.url,
              secret: row.secret,
              status: row.endpoint_status,
              retryDrops: Number(row.retry_drops),
            }
          : null,
      payload: bodies.get(row.event_id) ?? null,
      bodyUnread: Number(row.body_unread) === 1 && !bodies.has(row.event_id),
    }));
  }

  /** SQLite's RETURNING sees only the updated table: the claim, then one look-up of the rest. */
  private async claimOnSqlite(
    ids: readonly string[],
    now: Date,
    lockedUntil: Date,
    dueBy: Date,
    unreadFor: readonly string[],
  ): Promise<ClaimRow[]> {
    const s = this.sql;
    const claimed = await returnedRows<{ id: string }>(
      this.dataSource,
      `UPDATE ${DELIVERIES} SET locked_until = ?, claimed_at = ? WHERE id IN (${s.list(1, ids.length)}) AND status = 'pending'
         AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until < ?) RETURNING id`,
      [s.time(lockedUntil), s.time(now), ...ids, s.time(dueBy), s.time(now)],
    );
    if (claimed.length === 0) return [];
    // Within SQLite's bound values: past them, the last endpoints' bodies are read after all.
    const unread = unreadFor.slice(0, SQLITE_MAX_BOUND_VALUES - claimed.length);
    return this.dataSource.query(claimedOnSqlite(s, claimed.length, unread.length), [
      ...unread,
      ...claimed.map((row) => row.id),
    ]);
  }

  /** The endpoints as they are now, by id; a deleted one is missing. */
  async targets(endpointIds: readonly string[]): Promise<Map<string, DeliveryTarget>> {
    const targets = new Map<string, DeliveryTarget>();
    for (let i = 0; i < endpointIds.length; i += IDS_PER_LOOKUP) {
      const ids = endpointIds.slice(i, i + IDS_PER_LOOKUP);
      const rows: {
        id: string;
        url: string;
        secret: string;
        status: WebhookEndpointStatus;
        retry_drops: number;
      }[] = await this.dataSource.query(
        `SELECT id, url, secret, status, retry_drops FROM ${ENDPOINTS} WHERE id IN (${this.sql.list(1, ids.length)})`,
        ids,
      );
      for (const { id, url, secret, status, retry_drops: retryDrops } of rows) {
        targets.set(id, { url, secret, status, retryDrops: Number(retryDrops) });
      }
    }
    return targets;
  }

  /**
   * Writes a batch of outcomes: the attempts made, the deliveries' new state and the endpoints'
   * failing streaks; on PostgreSQL in one statement while nothing fails. Answers the endpoints it
   * disabled, once that is committed.
   */
  async record(
    outcomes: readonly DeliveryOutcome[],
    now: Date,
    streak: FailingStreakRule,
  ): Promise<DisabledEndpoint[]> {
    if (outcomes.length === 0) return [];
    const failed = outcomes.some((outcome) => outcome.attempted && outcome.status !== 'succeeded');
    // Sorted by id: a plan that reads the outcomes first locks their deliveries in id order, as a
    // purge, a drop and a renewal lock theirs.
    const statements = recordStatements(this.sql, [...outcomes].sort(byDeliveryId), now);
    if (this.sql.postgres && !failed) {
      const [{ sql, params }] = statements;
      await retryOnDeadlock(() => queryPrepared(this.dataSource.manager, sql, params));
      return [];
    }
    return inTransaction(this.dataSource.manager, async (manager) => {
      if (this.sql.postgres) await lockInOrder(manager, outcomes);
      for (const statement of statements) await manager.query(statement.sql, statement.params);
      return [
        ...(await this.disableGoneEndpoints(manager, outcomes, now)),
        ...(await this.trackFailingStreaks(manager, outcomes, now, streak)),
      ];
    });
  }

  /**
   * Extends the claims this worker still holds to `lockedUntil`: only where the delivery is still
   * pending under the same claim, never one another worker has taken since.
   */
  async renew(held: readonly ClaimedDelivery[], lockedUntil: Date): Promise<void> {
    if (held.length === 0) return;
    const { sql, params } = renewalStatement(this.sql, held, lockedUntil);
    if (this.sql.postgres) await queryPrepared(this.dataSource.manager, sql, params);
    else await this.dataSource.query(sql, params);
  }

  /**
   * Pending deliveries that are overdue and held by nobody: work whose queue job was lost (or,
   * under a backlog, is still waiting in the queue). Up to `limit`, after `after`.
   */
  async overdue(
    before: Date,
    now: Date,
    limit: number,
    after: OverdueDelivery | null = null,
  ): Promise<OverdueDelivery[]> {
    const { sql, params } = overdueStatement(this.sql, before, now, limit, after);
    return this.dataSource.query(sql, params);
  }

  /**
   * An endpoint whose receiver answered 410 Gone is disabled and its retries dropped, unless it
   * was disabled meanwhile or its URL changed since (the new URL has not said it is gone).
   */
  private async disableGoneEndpoints(
    manager: EntityManager,
    outcomes: readonly DeliveryOutcome[],
    now: Date,
  ): Promise<DisabledEndpoint[]> {
    const gone = new Map<string, string>();
    for (const { delivery, goneUrl } of outcomes)
      if (goneUrl !== null) gone.set(delivery.endpointId, goneUrl);
    const disabled: DisabledEndpoint[] = [];
    for (const [id, url] of gone) {
      if (await disable(manager, { id, url }, 'endpoint_gone', now))
        disabled.push({ id, reason: 'endpoint_gone' });
    }
    return disabled;
  }

  /**
   * An endpoint's failing streak starts at its first failed attempt, or at the first after a pause
   * longer than the rule's, and ends with any success; one that has failed everything for the
   * rule's period is disabled and its retries dropped.
   */
  private async trackFailingStreaks(
    manager: EntityManager,
    outcomes: readonly DeliveryOutcome[],
    now: Date,
    streak: FailingStreakRule,
  ): Promise<DisabledEndpoint[]> {
    const attempted = outcomes.filter((outcome) => outcome.attempted);
    const failed = new Set(
      attempted.filter((o) => o.status !== 'succeeded').map((o) => o.delivery.endpointId),
    );
    attempted.filter((o) => o.status === 'succeeded').forEach((o) => failed.delete(o.delivery.endpointId));
    if (failed.size === 0) return [];
    const s = this.sql;
    const ids = [...failed];
    const pausedBefore = s.time(new Date(now.getTime() - streak.pauseMs));
    await manager.query(
      `UPDATE ${ENDPOINTS} SET
         failing_since = CASE WHEN failing_since IS NULL OR last_failed_at IS NULL OR last_failed_at < ${s.param(1)}
                         THEN ${s.param(2)} ELSE failing_since END,
         last_failed_at = ${s.param(3)}
       WHERE id IN (${s.list(4, ids.length)})`,
      [pausedBefore, s.time(now), s.time(now), ...ids],
    );
    const expired: { id: string }[] = await manager.query(
      `SELECT id FROM ${ENDPOINTS} WHERE status = 'enabled' AND failing_since <= ${s.param(1)} AND id IN (${s.list(2, ids.length)})`,
      [s.time(new Date(now.getTime() - streak.disableAfterMs)), ...ids],
    );
    const disabled: DisabledEndpoint[] = [];
    for (const { id } of expired) {
      if (await disable(manager, { id }, 'failing_for_too_long', now)) {
        disabled.push({ id, reason: 'failing_for_too_long' });
      }
    }
    return disabled;
  }
}

const byDeliveryId = (a: DeliveryOutcome, b: DeliveryOutcome): number =>
  a.delivery.id < b.delivery.id ? -1 : a.delivery.id > b.delivery.id ? 1 : 0;

/**
 * PostgreSQL: takes the row locks a record's transaction will take, first and in id order: on its
 * endpoints (a streak ended, started or extended, an endpoint disabled), then on its deliveries
 * (see IN_ID_ORDER; the record's own update locks them in its plan's order). Taken as the statements go,
 * two groups failing to the same endpoints, each holding one endpoint the other wants next, and a
 * request disabling an endpoint (which locks it, then its deliveries) deadlocked one another:
 * thousands of times an hour under steady failures, until recording fell far behind.
 */
async function lockInOrder(manager: EntityManager, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  await manager.query(`SELECT COUNT(*) FROM (${IN_ID_ORDER('$1::text[]', ENDPOINTS)}) AS locked`, [
    [...new Set(outcomes.map((outcome) => outcome.delivery.endpointId))],
  ]);
  // Then the deliveries, in id order too (a purge or a drop meeting the record's plan order).
  await manager.query(`SELECT COUNT(*) FROM (${IN_ID_ORDER('$1::text[]')}) AS locked`, [
    outcomes.map((outcome) => outcome.delivery.id),
  ]);
}
