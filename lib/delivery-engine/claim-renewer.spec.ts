import { jest } from '@jest/globals';
import { CLAIM_RENEWAL_MS } from '../interview-api.tuning.js';
import type { ClaimedDelivery } from '../delivery-store/claimed-delivery.js';
import { ClaimRenewer } from './claim-renewer.js';

const claimed = (id: string): ClaimedDelivery => ({
  id,
  endpointId: 'whk_a',
  tenant: 'acct_a:test',
  eventId: 'evt_a',
  attempt: 0,
  claimedAt: new Date(0),
  target: null,
  payload: null,
  bodyUnread: false,
});

describe('ClaimRenewer', () => {
  let renewer: ClaimRenewer | null = null;

  beforeEach(() => jest.useFakeTimers());
  afterEach(async () => {
    await renewer?.close();
    renewer = null;
    jest.useRealTimers();
  });

  it('renews everything held, in one call per period, until it is let go', async () => {
    const renewed: string[][] = [];
    renewer = new ClaimRenewer(
      async (held) => void renewed.push(held.map((d) => d.id)),
      () => undefined,
    );
    const [a, b] = [claimed('dlv_a'), claimed('dlv_b')];
    renewer.hold([a, b]);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    renewer.letGo(a);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    renewer.letGo(b);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    expect(renewed).toEqual([['dlv_a', 'dlv_b'], ['dlv_b']]);
  });

  it('keeps renewing a later claim of a delivery when an earlier, lapsed claim of it is let go', async () => {
    const renewed: Date[][] = [];
    renewer = new ClaimRenewer(
      async (held) => void renewed.push(held.map((d) => d.claimedAt)),
      () => undefined,
    );
    const lapsed = claimed('dlv_a');
    const again = { ...claimed('dlv_a'), claimedAt: new Date(60_000) };
    renewer.hold([lapsed]);
    renewer.hold([again]);
    renewer.letGo(lapsed);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    expect(renewed).toEqual([[again.claimedAt]]);
  });

  it('reports a failed renewal and tries again at the next period; never two at once', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    let finish: () => void = () => undefined;
    renewer = new ClaimRenewer(
      () => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('database away'));
        return new Promise<void>((resolve) => (finish = resolve));
      },
      (error) => failures.push(error),
    );
    renewer.hold([claimed('dlv_a')]);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    expect(failures).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    // The second renewal is still running when the third is due: the third is skipped.
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    expect(calls).toBe(2);
    finish();
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    expect(calls).toBe(3);
    // Ends the third renewal: the close after each test waits for it.
    finish();
  });

  it('closes once the renewal under way has ended, and renews no more', async () => {
    let calls = 0;
    let finish: () => void = () => undefined;
    renewer = new ClaimRenewer(
      () => {
        calls++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      () => undefined,
    );
    renewer.hold([claimed('dlv_a')]);
    await jest.advanceTimersByTimeAsync(CLAIM_RENEWAL_MS);
    expect(calls).toBe(1);

    let closed = false;
    const closing = (async () => {
      await renewer.close();
      closed = true;
    })();
    await jest.advanceTimersByTimeAsync(2 * CLAIM_RENEWAL_MS);
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(calls).toBe(1);
  });
});
