import { DataSource } from 'typeorm';
import { DeliveryEntity, WebhookEndpointEntity } from '../lib/index.js';
import { CLAIM_LEASE_MS } from '../lib/interview-api.tuning.js';
import type { ClaimedDelivery } from '../lib/delivery-store/claimed-delivery.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import type { FailingStreakRule } from '../lib/delivery-engine/failing-streak.js';
import { apiClient } from './support/api-client.js';
import { attemptOutcome } from './support/outcomes.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_streak_record';
const HOUR = 3_600_000;
const STREAK: FailingStreakRule = { disableAfterMs: 24 * HOUR, pauseMs: HOUR };

/**
 * One record holding a failure and a success to the same endpoint, on the real database: the
 * success ends the endpoint's failing streak, whatever the order of the two in the record. On
 * SQLite the streak's end and the failure's tracking are separate statements of one transaction.
 * The host runs no worker, so only the test claims; the times are the test's own.
 */
describe('a record of a failure and a success to one endpoint', () => {
  let host: TestHost;
  let store: DeliveryStore;
  let endpointId: string;
  let claimed: ClaimedDelivery[];
  const now = new Date('2026-11-24T10:00:00.000Z');

  beforeEach(async () => {
    host = await createTestHost({ module: { worker: false } });
    store = host.app.get(DeliveryStore);
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    endpointId = (await createEndpoint(client, 'http://127.0.0.1:9/hook')).id;
    await publishResults(host, ACCOUNT, 2);
    const dataSource = host.app.get(DataSource);
    // Failing for two days, its last failure an hour ago (within the pause): one more failure alone
    // disables it.
    await dataSource.getRepository(WebhookEndpointEntity).update(
      { id: endpointId },
      {
        failingSince: new Date(now.getTime() - 48 * HOUR),
        lastFailedAt: new Date(now.getTime() - HOUR / 2),
      },
    );
    await dataSource.getRepository(DeliveryEntity).update({ endpointId }, { nextAttemptAt: now });
    const ids = (await dataSource.getRepository(DeliveryEntity).find()).map((delivery) => delivery.id);
    claimed = await store.claim(ids, now, new Date(now.getTime() + CLAIM_LEASE_MS));
    expect(claimed).toHaveLength(2);
  });

  afterEach(async () => {
    await host.close();
  });

  const endpoint = (): Promise<WebhookEndpointEntity> =>
    host.app.get(DataSource).getRepository(WebhookEndpointEntity).findOneByOrFail({ id: endpointId });
  const retryAt = new Date(now.getTime() + 60_000);

  it.each([
    ['the failure first', (failing: ClaimedDelivery, accepted: ClaimedDelivery) => [failing, accepted]],
    ['the success first', (failing: ClaimedDelivery, accepted: ClaimedDelivery) => [accepted, failing]],
  ])('ends the streak and keeps the endpoint enabled, %s', async (_order, ordered) => {
    const [failing, accepted] = claimed;
    const outcomes = ordered(failing, accepted).map((delivery) =>
      attemptOutcome(delivery, delivery === failing ? retryAt : null),
    );
    expect(await store.record(outcomes, now, STREAK)).toEqual([]);
    expect(await endpoint()).toMatchObject({ status: 'enabled', failingSince: null });
  });

  it('disables the endpoint when both fail (the streak has run past disableAfterMs)', async () => {
    const outcomes = claimed.map((delivery) => attemptOutcome(delivery, retryAt));
    expect(await store.record(outcomes, now, STREAK)).toEqual([
      { id: endpointId, reason: 'failing_for_too_long' },
    ]);
    expect(await endpoint()).toMatchObject({ status: 'disabled', disabledReason: 'failing_for_too_long' });
  });
});
