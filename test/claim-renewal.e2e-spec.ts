import { DataSource } from 'typeorm';
import { AttemptEntity, DeliveryEntity } from '../lib/index.js';
import { CLAIM_LEASE_MS, CLAIM_RENEWAL_MS } from '../lib/interview-api.tuning.js';
import type { ClaimedDelivery } from '../lib/delivery-store/claimed-delivery.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { apiClient } from './support/api-client.js';
import { attemptOutcome } from './support/outcomes.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver } from './support/receiver.js';
import { createEndpoint, publishResults, TEST_WEBHOOKS } from './support/webhooks.js';

const ACCOUNT = 'acct_renewal';
const SECOND = 1000;

/**
 * The claims of a worker, on the real database: taken, renewed while held, fenced at the record.
 * The host runs no worker, so only the test claims; the times are the test's own.
 */
describe('claim renewal', () => {
  let host: TestHost;
  let store: DeliveryStore;
  let id: string;
  const t0 = new Date('2026-11-23T10:00:00.000Z');
  const at = (ms: number): Date => new Date(t0.getTime() + ms);

  beforeEach(async () => {
    host = await createTestHost({ module: { worker: false } });
    store = host.app.get(DeliveryStore);
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, 1);
    const [delivery] = await host.app.get(DataSource).getRepository(DeliveryEntity).find();
    id = delivery.id;
    // Due at t0, whatever the clock said when it was published.
    await host.app.get(DataSource).getRepository(DeliveryEntity).update({ id }, { nextAttemptAt: t0 });
  });

  afterEach(async () => {
    await host.close();
  });

  const row = async (): Promise<DeliveryEntity> =>
    host.app.get(DataSource).getRepository(DeliveryEntity).findOneByOrFail({ id });

  const claim = (ms: number): Promise<ClaimedDelivery[]> =>
    store.claim([id], at(ms), at(ms + CLAIM_LEASE_MS));

  it('keeps a renewed claim past its first lease, and records its outcome after the renewals', async () => {
    const [held] = await claim(0);
    expect(held).toMatchObject({ id, claimedAt: at(0) });
    expect(await claim(CLAIM_LEASE_MS / 2)).toEqual([]);

    await store.renew([held], at(2 * CLAIM_LEASE_MS));
    expect((await row()).lockedUntil?.getTime()).toBe(at(2 * CLAIM_LEASE_MS).getTime());
    // Unrenewed, the claim would have expired: another worker could have taken it.
    expect(await claim(CLAIM_LEASE_MS + SECOND)).toEqual([]);

    await store.record([attemptOutcome(held)], at(CLAIM_LEASE_MS + 2 * SECOND), {
      disableAfterMs: 60_000,
      pauseMs: 60_000,
    });
    expect(await row()).toMatchObject({
      status: 'succeeded',
      attempt: 1,
      lockedUntil: null,
      claimedAt: null,
    });
  });

  it('never extends a claim another worker has taken since, nor records the outcome of the lapsed one', async () => {
    const [lapsed] = await claim(0);
    const [current] = await claim(CLAIM_LEASE_MS + SECOND);
    expect(current).toMatchObject({ id, claimedAt: at(CLAIM_LEASE_MS + SECOND) });

    await store.renew([lapsed], at(10 * CLAIM_LEASE_MS));
    expect((await row()).lockedUntil?.getTime()).toBe(at(2 * CLAIM_LEASE_MS + SECOND).getTime());
    const streak = { disableAfterMs: 60_000, pauseMs: 60_000 };
    await store.record([attemptOutcome(lapsed)], at(CLAIM_LEASE_MS + 2 * SECOND), streak);
    expect(await row()).toMatchObject({ status: 'pending', attempt: 0 });
    const attempts = host.app.get(DataSource).getRepository(AttemptEntity);
    expect(await attempts.countBy({ deliveryId: id })).toBe(0);

    // The current claim's outcome is the delivery's one and only first attempt (with a failure
    // too, which SQLite and PostgreSQL both record in a transaction of several statements).
    await store.record([attemptOutcome(current, at(10 * SECOND))], at(CLAIM_LEASE_MS + 3 * SECOND), streak);
    expect(await row()).toMatchObject({ status: 'pending', attempt: 1 });
    expect(await attempts.findBy({ deliveryId: id })).toEqual([
      expect.objectContaining({ attempt: 1, responseStatus: 500, error: 'http_error' }),
    ]);
  });

  it('leaves a delivery recorded for a retry free to be claimed: a late renewal does not hold it', async () => {
    const [held] = await claim(0);
    await store.record([attemptOutcome(held, at(10 * SECOND))], at(SECOND), {
      disableAfterMs: 60_000,
      pauseMs: 60_000,
    });
    await store.renew([held], at(10 * CLAIM_LEASE_MS));
    expect(await row()).toMatchObject({ status: 'pending', attempt: 1, lockedUntil: null, claimedAt: null });
    expect(await claim(10 * SECOND)).toHaveLength(1);
  });
});

describe('a worker holding a delivery longer than a renewal period', () => {
  it('renews its claim while the attempt is on the wire', async () => {
    // The attempt outlasts the renewal period: the receiver never answers, the deadline is later.
    const host = await createTestHost({
      module: { webhooks: { ...TEST_WEBHOOKS, timeoutMs: CLAIM_RENEWAL_MS + 10_000 } },
    });
    const silent = await Receiver.start(() => undefined);
    try {
      const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
      await createEndpoint(client, silent.url);
      await publishResults(host, ACCOUNT, 1);
      await silent.waitFor(1);
      const deliveries = host.app.get(DataSource).getRepository(DeliveryEntity);
      const [claimed] = await deliveries.find();
      const firstLease = claimed.lockedUntil?.getTime() ?? 0;
      expect(firstLease).toBeGreaterThan(Date.now());

      const renewed = await eventually(async () => {
        const lease = (await deliveries.findOneByOrFail({ id: claimed.id })).lockedUntil?.getTime() ?? 0;
        return lease > firstLease ? lease : undefined;
      }, CLAIM_RENEWAL_MS + 5_000);
      // Renewed a moment ago: a whole lease from now again.
      expect(renewed - Date.now()).toBeGreaterThan(CLAIM_LEASE_MS - 5_000);
      expect(await deliveries.findOneByOrFail({ id: claimed.id })).toMatchObject({
        status: 'pending',
        attempt: 0,
      });
    } finally {
      await silent.close();
      await host.close();
    }
  });
});
