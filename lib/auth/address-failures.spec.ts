import { AddressFailures, type LookupAdmission } from './address-failures.js';

const at = (ms: number) => (): number => ms;
/** Lets pending promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('AddressFailures', () => {
  it('refuses an address that reached the limit until its window ends, then forgets it', async () => {
    const failures = new AddressFailures(3);
    failures.counted('203.0.113.7', 3, 500, 1_000);
    await expect(failures.begin('203.0.113.7', at(1_000))).resolves.toEqual({
      started: false,
      refusedForMs: 500,
      burst: false,
    });
    await expect(failures.begin('203.0.113.8', at(1_000))).resolves.toEqual({ started: true });
    await expect(failures.begin('203.0.113.7', at(1_500))).resolves.toEqual({ started: true });
  });

  it('holds look-ups in flight and failures counted together to the limit: the next waits its turn', async () => {
    const failures = new AddressFailures(3);
    failures.counted('a', 1, 60_000, 0);
    await failures.begin('a', at(0));
    await failures.begin('a', at(0));
    let third: LookupAdmission | null = null;
    void failures.begin('a', at(0)).then((admission) => (third = admission));
    await settle();
    expect(third).toBeNull();
    failures.end('a', 0);
    await settle();
    expect(third).toEqual({ started: true });
  });

  it('tells every look-up waiting at once when the address reaches the limit', async () => {
    const failures = new AddressFailures(2);
    await failures.begin('a', at(0));
    await failures.begin('a', at(0));
    const waiting = [failures.begin('a', at(0)), failures.begin('a', at(0))];
    failures.counted('a', 2, 5_000, 0);
    await expect(Promise.all(waiting)).resolves.toEqual([
      { started: false, refusedForMs: 5_000, burst: false },
      { started: false, refusedForMs: 5_000, burst: false },
    ]);
  });

  it('lets those waiting go before a newcomer once a window ends', async () => {
    const failures = new AddressFailures(3);
    failures.counted('c', 2, 100, 0);
    await failures.begin('c', at(0));
    const order: string[] = [];
    const waiters = ['w1', 'w2', 'w3'].map((name) =>
      failures.begin('c', at(50)).then((admission) => {
        order.push(name);
        return admission;
      }),
    );
    await settle();
    expect(order).toEqual([]);
    // The window has ended: room for two more besides the one in flight, and three were first.
    const newcomer = failures.begin('c', at(200)).then((admission) => {
      order.push('newcomer');
      return admission;
    });
    await settle();
    expect(order).toEqual(['w1', 'w2']);
    failures.end('c', 200);
    await settle();
    expect(order).toEqual(['w1', 'w2', 'w3']);
    failures.end('c', 200);
    await expect(newcomer).resolves.toEqual({ started: true });
    await expect(Promise.all(waiters)).resolves.toEqual(Array.from({ length: 3 }, () => ({ started: true })));
  });

  it('refuses a burst at once past ten times the limit waiting', async () => {
    const failures = new AddressFailures(2);
    const admissions = Array.from({ length: 23 }, () => failures.begin('b', at(0)));
    await settle();
    // 2 in flight and 20 waiting; the 23rd is refused for a second, as a burst.
    await expect(admissions[22]).resolves.toEqual({ started: false, refusedForMs: 1000, burst: true });
    // Each of the others starts in its turn, as one before it ends.
    for (const admission of admissions.slice(0, 22)) {
      await expect(admission).resolves.toEqual({ started: true });
      failures.end('b', 0);
    }
  });

  it('keeps at most its bound of addresses: expired ones go first, then the earliest counted', async () => {
    const failures = new AddressFailures(1, 3);
    const refused = async (address: string, now: number): Promise<number | null> => {
      const admission = await failures.begin(address, at(now));
      if (admission.started) {
        failures.end(address, now);
        return null;
      }
      return admission.refusedForMs;
    };
    failures.counted('a', 1, 100, 0);
    failures.counted('b', 1, 5_000, 0);
    failures.counted('c', 1, 5_000, 0);
    // 'a' has expired: it makes room, and 'b' and 'c' stay.
    failures.counted('d', 1, 5_000, 200);
    expect(await Promise.all(['b', 'c', 'd'].map((address) => refused(address, 200)))).toEqual([
      4_800, 4_800, 5_000,
    ]);
    // None has expired: the earliest counted, 'b', makes room.
    failures.counted('e', 1, 5_000, 300);
    expect(await Promise.all(['b', 'c', 'd', 'e'].map((address) => refused(address, 300)))).toEqual([
      null,
      4_700,
      4_900,
      5_000,
    ]);
  });
});
