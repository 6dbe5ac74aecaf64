import type { ClaimedDelivery, DeliveryTarget } from '../delivery-store/claimed-delivery.js';
import { EndpointRefresher } from './endpoint-refresher.js';

const MAX_AGE_MS = 1000;
const AT_CLAIM: DeliveryTarget = {
  url: 'https://a.example/hook',
  secret: 'whsec_old',
  status: 'enabled',
  retryDrops: 0,
};
const NOW: DeliveryTarget = {
  url: 'https://b.example/hook',
  secret: 'whsec_new',
  status: 'enabled',
  retryDrops: 0,
};

const claimedAt = (endpointId: string, at: number): ClaimedDelivery => ({
  id: `dlv_${endpointId}_${at}`,
  endpointId,
  tenant: 'acct_a:test',
  eventId: 'evt_a',
  attempt: 0,
  claimedAt: new Date(at),
  target: AT_CLAIM,
  payload: '{}',
  bodyUnread: false,
});

/** A refresher on a clock the test moves, over endpoints the test edits, counting its reads. */
function refresherOver(endpoints: Map<string, DeliveryTarget>): {
  refresher: EndpointRefresher;
  reads: string[][];
  clock: { now: number };
} {
  const reads: string[][] = [];
  const clock = { now: 0 };
  const refresher = new EndpointRefresher(
    async (ids) => {
      reads.push([...ids].sort());
      return new Map(ids.flatMap((id) => (endpoints.has(id) ? [[id, endpoints.get(id)!] as const] : [])));
    },
    MAX_AGE_MS,
    () => clock.now,
  );
  return { refresher, reads, clock };
}

describe('EndpointRefresher', () => {
  it('answers what the claim read while that is recent, without reading', async () => {
    const { refresher, reads, clock } = refresherOver(new Map([['whk_a', NOW]]));
    clock.now = MAX_AGE_MS - 1;
    expect(await refresher.current(claimedAt('whk_a', 0))).toBe(AT_CLAIM);
    expect(reads).toEqual([]);
  });

  it('reads an endpoint again once the claim is older, every endpoint wanted in one tick at once', async () => {
    const { refresher, reads, clock } = refresherOver(
      new Map([
        ['whk_a', NOW],
        ['whk_b', { ...NOW, status: 'disabled' }],
      ]),
    );
    clock.now = MAX_AGE_MS;
    const answers = await Promise.all([
      refresher.current(claimedAt('whk_a', 0)),
      refresher.current(claimedAt('whk_b', 0)),
      refresher.current({ ...claimedAt('whk_a', 0), id: 'dlv_another_of_a' }),
      refresher.current(claimedAt('whk_gone', 0)),
    ]);
    expect(answers).toEqual([NOW, { ...NOW, status: 'disabled' }, NOW, null]);
    expect(reads).toEqual([['whk_a', 'whk_b', 'whk_gone']]);
  });

  it('serves a read for the max age, then reads again', async () => {
    const endpoints = new Map([['whk_a', AT_CLAIM]]);
    const { refresher, reads, clock } = refresherOver(endpoints);
    clock.now = 5000;
    expect(await refresher.current(claimedAt('whk_a', 0))).toEqual(AT_CLAIM);
    endpoints.set('whk_a', NOW);
    clock.now = 5000 + MAX_AGE_MS - 1;
    expect(await refresher.current(claimedAt('whk_a', 0))).toEqual(AT_CLAIM);
    clock.now = 5000 + MAX_AGE_MS;
    expect(await refresher.current(claimedAt('whk_a', 0))).toEqual(NOW);
    expect(reads).toHaveLength(2);
  });

  it('passes a failed read on to every delivery waiting for it, and keeps nothing of it', async () => {
    let failing = true;
    const clock = { now: MAX_AGE_MS };
    const refresher = new EndpointRefresher(
      async (ids) => {
        if (failing) throw new Error('database unreachable');
        return new Map(ids.map((id) => [id, NOW]));
      },
      MAX_AGE_MS,
      () => clock.now,
    );
    const waiting = [refresher.current(claimedAt('whk_a', 0)), refresher.current(claimedAt('whk_b', 0))];
    for (const answer of waiting) await expect(answer).rejects.toThrow('database unreachable');
    failing = false;
    expect(await refresher.current(claimedAt('whk_a', 0))).toEqual(NOW);
  });

  it('reads again when a read arrives older than the max age, and gives up after a few', async () => {
    const clock = { now: MAX_AGE_MS };
    let slowReads = 1;
    const reads: number[] = [];
    const refresher = new EndpointRefresher(
      async () => {
        reads.push(clock.now);
        // A read slower than the max age may predate a change that has since answered.
        if (slowReads-- > 0) clock.now += MAX_AGE_MS;
        return new Map([['whk_a', NOW]]);
      },
      MAX_AGE_MS,
      () => clock.now,
    );
    expect(await refresher.current(claimedAt('whk_a', 0))).toEqual(NOW);
    expect(reads).toEqual([MAX_AGE_MS, 2 * MAX_AGE_MS]);

    slowReads = Infinity;
    clock.now += MAX_AGE_MS;
    await expect(refresher.current(claimedAt('whk_a', 0))).rejects.toThrow('took longer than');
  });
});
