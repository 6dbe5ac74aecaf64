import { Injectable } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource, type EntityManager } from 'typeorm';
import { BinaryArray } from '../database/binary-array.js';
import { retryOnDeadlock } from '../database/deadlock-retry.js';
import { inTransaction } from '../database/in-transaction.js';
import { queryPrepared } from '../database/prepared-statement.js';
import { returnedRows } from '../database/returned-rows.js';
import { SQLITE_MAX_BOUND_VALUES, SqlDialect } from '../database/sql-dialect.js';
import type { FailingStreakRule } from '../delivery-engine/failing-streak.js';
import { endpointSecretName, SecretCipher } from '../secret-encryption/secret-cipher.js';
import type { WebhookEndpointStatus } from '../webhook-endpoints/webhook-endpoint.entity.js';
import {
  idList,
  inParts,
  type OverdueDelivery,
  overdueStatement,
  recordStatements,
  renewalStatement,
} from './bound-statements.js';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryTarget } from './claimed-delivery.js';
import { dropPendingRetries } from './drop-pending-retries.js';
import * as PG from './postgres-statements.js';
import * as SQLITE from './sqlite-statements.js';
import { DUE_SKEW_ALLOWANCE_MS, ENDPOINT_IDS_PER_LOOKUP } from '../interview-api.tuning.js';

/** An endpoint the engine disabled, and why (its `disabled_reason`). */
export interface DisabledEndpoint {
  id: string;
  reason: 'endpoint_gone' | 'failing_for_too_long';
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
 * The delivery engine's database work, a few statements per batch rather than per delivery: on
 * PostgreSQL one claim per batch and, while nothing fails, one record per group of outcomes. The
 * statements are in postgres-statements.ts and sqlite-statements.ts.
 */
@Injectable()
export class DeliveryStore {
  private readonly sql: SqlDialect;

  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
  ) {
    this.sql = new SqlDialect(dataSource);
  }

  /**
   * Takes a job's deliveries still due by `now` (within DUE_SKEW_ALLOWANCE_MS) and held by no other
   * worker, stamped `now` and leased until `lockedUntil`: a duplicate or stale job finds nothing. The
   * bodies of the `unreadFor` endpoints' events are left unread.
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
      ? await queryPrepared<ClaimRow>(this.dataSource.manager, PG.CLAIM, [
          lockedUntil,
          now,
          new BinaryArray('text', ids),
          dueBy,
          new BinaryArray('text', unreadFor),
        ])
      : await this.claimOnSqlite(ids, now, lockedUntil, dueBy, unreadFor);
    const bodies = new Map<string, string>();
    for (const row of rows) if (row.payload !== null) bodies.set(row.event_id, row.payload);
    const secrets = this.secretsOf(rows);
    return rows.map((row) => {
      const secret = secrets.get(row.endpoint_id);
      return {
        id: row.id,
        endpointId: row.endpoint_id,
        tenant: `${row.account_id}:${Number(row.livemode) === 1 ? 'live' : 'test'}`,
        eventId: row.event_id,
        attempt: Number(row.attempt),
        claimedAt: now,
        target:
          row.url !== null && secret !== undefined && row.endpoint_status !== null
            ? {
                url: row.url,
                secret,
                status: row.endpoint_status,
                retryDrops: Number(row.retry_drops),
              }
            : null,
        payload: bodies.get(row.event_id) ?? null,
        bodyUnread: Number(row.body_unread) === 1 && !bodies.has(row.event_id),
      };
    });
  }

  /** The claimed endpoints' secrets as written, each decrypted once however many of its deliveries came. */
  private secretsOf(rows: readonly ClaimRow[]): Map<string, string> {
    const secrets = new Map<string, string>();
    for (const { endpoint_id: id, secret } of rows) {
      if (secret !== null && !secrets.has(id))
        secrets.set(id, this.cipher.decrypt(secret, endpointSecretName(id)));
    }
    return secrets;
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
      this.dataSource.manager,
      SQLITE.CLAIM(idList(ids.length)),
      [s.time(lockedUntil), s.time(now), ...ids, s.time(dueBy), s.time(now)],
    );
    if (claimed.length === 0) return [];
    // Within SQLite's bound values: past them, the last endpoints' bodies are read after all.
    const unread = unreadFor.slice(0, SQLITE_MAX_BOUND_VALUES - claimed.length);
    return this.dataSource.query(SQLITE.CLAIMED(idList(unread.length), idList(claimed.length)), [
      ...unread,
      ...claimed.map((row) => row.id),
    ]);
  }

  /** The endpoints as they are now, by id; a deleted one is missing. */
  async targets(endpointIds: readonly string[]): Promise<Map<string, DeliveryTarget>> {
    const targets = new Map<string, DeliveryTarget>();
    const lookups = this.sql.postgres ? [endpointIds] : inParts(endpointIds, ENDPOINT_IDS_PER_LOOKUP);
    for (const ids of lookups) {
      const rows: {
        id: string;
        url: string;
        secret: string;
        status: WebhookEndpointStatus;
        retry_drops: number;
      }[] = this.sql.postgres
        ? await this.dataSource.query(PG.ENDPOINT_TARGETS, [ids])
        : await this.dataSource.query(SQLITE.ENDPOINT_TARGETS(idList(ids.length)), [...ids]);
      for (const { id, url, secret, status, retry_drops: retryDrops } of rows) {
        const plaintext = this.cipher.decrypt(secret, endpointSecretName(id));
        targets.set(id, { url, secret: plaintext, status, retryDrops: Number(retryDrops) });
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
    const statements = recordStatements(this.sql, [...outcomes].sort(byDeliveryId), now);
    if (this.sql.postgres && !failed) {
      const [{ sql, params }] = statements;
      await retryOnDeadlock(() => queryPrepared(this.dataSource.manager, sql, params));
      return [];
    }
    return inTransaction(this.dataSource.manager, async (manager) => {
      if (this.sql.postgres) {
        // The rows this transaction will lock, first and in the rule's order.
        const endpointIds = [...new Set(outcomes.map((outcome) => outcome.delivery.endpointId))];
        await manager.query(PG.LOCK_ENDPOINTS, [endpointIds]);
        await manager.query(PG.LOCK_DELIVERIES, [outcomes.map((outcome) => outcome.delivery.id)]);
      }
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
      if (await this.disable(manager, id, url, 'endpoint_gone', now))
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
    const startedBy = s.time(new Date(now.getTime() - streak.disableAfterMs));
    let expired: { id: string }[];
    if (s.postgres) {
      await manager.query(PG.EXTEND_FAILING_STREAKS, [pausedBefore, now, ids]);
      expired = await manager.query(PG.FAILING_TOO_LONG, [startedBy, ids]);
    } else {
      const list = idList(ids.length);
      await manager.query(SQLITE.EXTEND_FAILING_STREAKS(list), [
        pausedBefore,
        s.time(now),
        s.time(now),
        ...ids,
      ]);
      expired = await manager.query(SQLITE.FAILING_TOO_LONG(list), [startedBy, ...ids]);
    }
    const disabled: DisabledEndpoint[] = [];
    for (const { id } of expired) {
      if (await this.disable(manager, id, null, 'failing_for_too_long', now)) {
        disabled.push({ id, reason: 'failing_for_too_long' });
      }
    }
    return disabled;
  }

  /**
   * Disables an endpoint if it is still enabled (and still at `url`, when given) and drops its
   * pending retries, in the caller's transaction; answers whether it did.
   */
  private async disable(
    manager: EntityManager,
    id: string,
    url: string | null,
    reason: DisabledEndpoint['reason'],
    now: Date,
  ): Promise<boolean> {
    const s = this.sql;
    const disabled = s.postgres
      ? await returnedRows(manager, PG.DISABLE_ENDPOINT, [reason, now, id, url])
      : await returnedRows(manager, SQLITE.DISABLE_ENDPOINT, [reason, s.time(now), id, url, url]);
    if (disabled.length === 0) return false;
    await dropPendingRetries(manager, id, 'endpoint_disabled', now);
    return true;
  }
}

const byDeliveryId = (a: DeliveryOutcome, b: DeliveryOutcome): number =>
  a.delivery.id < b.delivery.id ? -1 : a.delivery.id > b.delivery.id ? 1 : 0;
