import { AddressFailures } from './address-failures.js';

describe('AddressFailures', () => {
  it('refuses an address that reached the limit until its window ends, then forgets it', () => {
    const failures = new AddressFailures(3);
    failures.counted('203.0.113.7', 3, 500, 1_000);
    expect(failures.begin('203.0.113.7', 1_000)).toBe(500);
    expect(failures.begin('203.0.113.8', 1_000)).toBe(0);
    expect(failures.begin('203.0.113.7', 1_500)).toBe(0);
  });

  it('holds look-ups in flight and failures counted together to the limit', () => {
    const failures = new AddressFailures(3);
    failures.counted('a', 1, 60_000, 0);
    expect([failures.begin('a', 0), failures.begin('a', 0), failures.begin('a', 0)]).toEqual([0, 0, 1000]);
    failures.end('a');
    expect(failures.begin('a', 0)).toBe(0);
    // An address with no failure counted may have `limit` look-ups at once.
    expect([0, 0, 0, 0].map(() => failures.begin('b', 0))).toEqual([0, 0, 0, 1000]);
    for (let i = 0; i < 3; i++) failures.end('b');
    expect(failures.begin('b', 0)).toBe(0);
  });

  it('keeps at most its bound of addresses: expired ones go first, then the earliest counted', () => {
    const failures = new AddressFailures(1, 3);
    failures.counted('a', 1, 100, 0);
    failures.counted('b', 1, 5_000, 0);
    failures.counted('c', 1, 5_000, 0);
    // 'a' has expired: it makes room, and 'b' and 'c' stay.
    failures.counted('d', 1, 5_000, 200);
    expect(['b', 'c', 'd'].map((address) => failures.begin(address, 200))).toEqual([4_800, 4_800, 5_000]);
    // None has expired: the earliest counted, 'b', makes room.
    failures.counted('e', 1, 5_000, 300);
    expect(['b', 'c', 'd', 'e'].map((address) => failures.begin(address, 300) > 0)).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });
});
