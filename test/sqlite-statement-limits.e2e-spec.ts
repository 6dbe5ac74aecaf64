import { jest } from '@jest/globals';
import { DataSource, Not } from 'typeorm';
import { AttemptEntity, DeliveryEntity, InvalidModuleOptionsError } from '../lib/index.js';
import { SQLITE_MAX_BOUND_VALUES, SqlDialect } from '../lib/database/sql-dialect.js';
import { CLAIM_LEASE_MS, CLAIM_RENEWAL_MS } from '../lib/interview-api.tuning.js';
import { ClaimRenewer } from '../lib/delivery-engine/claim-renewer.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { CLAIMS_PER_RENEWAL, recordStatements } from '../lib/delivery-store/bound-statements.js';
import { resolveOptions } from '../lib/interview-api.options.js';
import { apiClient } from './support/api-client.js';
import { CURSOR_SECRET } from './support/host-app.js';
import { closedAfterEachTest } from './support/per-test.js';
import { attemptOutcome } from './support/outcomes.js';
import { eventually } from './support/receiver.js';
import {
  countByWebhookId,
  createEndpoint,
  publishResults,
  REDIS,
  TEST_WEBHOOKS,
} from './support/webhooks.js';

const { receivers, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_limits';

/** Values an outcome binds on SQLite (the columns of the rows `o` the record reads). */
const OUTCOME_VALUES = 12;

const dialectOf = (type: 'better-sqlite3' | 'postgres'): SqlDialect =>
  new SqlDialect({ options: { type } } as unknown as DataSource);

/**
 * SQLite binds at most 32,766 values in one statement, and the engine's statements bind several per
 * delivery: an outcome 12, a renewed claim 2. A group of outcomes or a holding of claims larger than
 * one statement binds is written in several (a group's in its one transaction); PostgreSQL binds
 * arrays, one statement whatever the number.
 */
describe('statements over more rows than SQLite binds in one', () => {
  it('records outcomes in parts one SQLite statement binds, and in one statement on PostgreSQL', () => {
    const now = new Date();
    const outcomes = Array.from({ length: 5_600 }, (_, i) =>
      attemptOutcome({
        id: `dlv_${String(i).padStart(5, '0')}`,
        endpointId: 'whk_limits',
        tenant: 'acct_limits:test',
        eventId: 'evt_limits',
        attempt: 0,
        claimedAt: now,
        target: null,
        payload: null,
        bodyUnread: false,
      }),
    );
    const statements = recordStatements(dialectOf('better-sqlite3'), outcomes, now);
    // Five statements a part (the attempts, the deliveries, the schedule twice, the streaks ended).
    const attempts = statements.filter((statement) =>
      statement.sql.includes('INSERT INTO interview_webhook_attempts'),
    );
    expect(attempts.map((statement) => (statement.params.length - 1) / OUTCOME_VALUES)).toEqual([
      2_730, 2_730, 140,
    ]);
    expect(statements).toHaveLength(15);
    for (const statement of statements)
      expect(statement.params.length).toBeLessThanOrEqual(SQLITE_MAX_BOUND_VALUES);
    // The largest part and `now` bind as many values as SQLite takes, and one row more would not fit.
    expect(2_730 * OUTCOME_VALUES + 1).toBeLessThanOrEqual(SQLITE_MAX_BOUND_VALUES);
    expect(2_731 * OUTCOME_VALUES + 1).toBeGreaterThan(SQLITE_MAX_BOUND_VALUES);
    expect(recordStatements(dialectOf('postgres'), outcomes, now)).toHaveLength(1);
    expect(CLAIMS_PER_RENEWAL).toBe(16_382);
  });

  it('sends each of 3,000 events exactly once with batchSize 3,000, and records them', async () => {
    // Eight send slots to one endpoint whose pace is not known yet: all but 128 of the first batch
    // are given back unsent, and recorded, in one group of some 2,870 outcomes.
    const host = await boot({
      module: { webhooks: { ...TEST_WEBHOOKS, batchSize: 3_000, concurrency: 8 } },
    });
    const receiver = await receivers.start();
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, receiver.url);
    const events = await publishResults(host, ACCOUNT, 3_000);

    // The given-back deliveries come back at the endpoint's pace: some 35 s on a quiet machine, and
    // several times that on a busy one, where each send takes longer. An unrecorded group would show
    // as second sends below, however long this took.
    const deliveries = host.app.get(DataSource).getRepository(DeliveryEntity);
    await eventually(async () => (await deliveries.countBy({ status: 'succeeded' })) === 3_000, 300_000);
    // Long enough for a second send to show: a sweep re-queues what a lost record left claimed.
    await new Promise((resolve) => setTimeout(resolve, 3 * TEST_WEBHOOKS.sweepIntervalMs));

    const counts = countByWebhookId(receiver.requests);
    expect(receiver.requests).toHaveLength(3_000);
    for (const event of events) expect(counts.get(event.id)).toBe(1);
    expect(await host.app.get(DataSource).getRepository(AttemptEntity).count()).toBe(3_000);
    expect(await deliveries.countBy({ status: Not('succeeded') })).toBe(0);
  }, 360_000);

  it('renews every one of 16,400 claims a worker holds, past what one SQLite statement binds', async () => {
    const held = 16_400;
    const host = await boot({ module: { worker: false } });
    const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, held);
    const deliveries = host.app.get(DataSource).getRepository(DeliveryEntity);
    const ids = (await deliveries.find({ select: { id: true } })).map((delivery) => delivery.id);
    const store = host.app.get(DeliveryStore);
    const now = new Date();
    const claimed = await store.claim(ids, now, new Date(now.getTime() + CLAIM_LEASE_MS));
    expect(claimed).toHaveLength(held);

    const renewedUntil = new Date(now.getTime() + 10 * CLAIM_LEASE_MS);
    const failures: unknown[] = [];
    // Only the renewer's period is the test's; the database's and the host's timers run as they do.
    jest.useFakeTimers({
      doNotFake: [
        'Date',
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setTimeout',
        'clearTimeout',
      ],
    });
    const renewer = new ClaimRenewer(
      (claims) => store.renew(claims, renewedUntil),
      (error) => failures.push(error),
    );
    try {
      renewer.hold(claimed);
      jest.advanceTimersByTime(CLAIM_RENEWAL_MS);
      await eventually(
        async () => failures.length > 0 || (await deliveries.countBy({ lockedUntil: renewedUntil })) === held,
        30_000,
      );
    } finally {
      renewer.close();
      jest.useRealTimers();
    }
    expect(failures).toEqual([]);
    expect(await deliveries.countBy({ lockedUntil: renewedUntil })).toBe(held);
  });
});

describe('webhooks.batchSize', () => {
  const options = (batchSize: number) => ({
    keyPrefix: 'iv',
    cursorSecret: CURSOR_SECRET,
    redis: REDIS,
    webhooks: { batchSize },
  });

  it('refuses a batch too large for one claim on SQLite at start-up, naming the option', () => {
    expect(() => resolveOptions(options(32_763))).toThrow(InvalidModuleOptionsError);
    expect(() => resolveOptions(options(32_763))).toThrow(/"webhooks\.batchSize" must be at most 32762/);
    expect(resolveOptions(options(32_762)).webhooks.batchSize).toBe(32_762);
  });

  it('claims a batch of the largest batchSize in one statement', async () => {
    const host = await boot({ module: { worker: false, webhooks: { ...TEST_WEBHOOKS, batchSize: 32_762 } } });
    const ids = Array.from({ length: 32_762 }, (_, i) => `dlv_missing_${i}`);
    const now = new Date();
    await expect(
      host.app.get(DeliveryStore).claim(ids, now, new Date(now.getTime() + CLAIM_LEASE_MS)),
    ).resolves.toEqual([]);
  });
});
