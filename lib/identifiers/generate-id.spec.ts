import { generateId, idTimePrefix } from './generate-id.js';

describe('generateId', () => {
  it('is the prefix, 10 time characters and 16 random characters of lowercase Crockford base32', () => {
    expect(generateId('evt')).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('sorts by time, and in creation order within one millisecond', () => {
    const now = new Date('2026-11-21T09:30:00.000Z');
    const ids = Array.from({ length: 1000 }, () => generateId('evt', now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const later = generateId('evt', new Date(now.getTime() + 1));
    expect(later > ids[ids.length - 1]).toBe(true);
  });

  it('draws a fresh random part in each new millisecond', () => {
    const a = generateId('dlv', new Date(1_000));
    const b = generateId('dlv', new Date(2_000));
    expect(a.slice(14)).not.toEqual(b.slice(14));
  });

  it('never repeats a random part across refills of its random pool', () => {
    // 1,000 new milliseconds draw 1,000 random parts: several refills of a 256-part pool.
    const parts = Array.from({ length: 1000 }, (_, i) => generateId('att', new Date(5_000 + i)).slice(14));
    expect(new Set(parts).size).toBe(parts.length);
    expect(parts.every((part) => /^[0-9a-hjkmnp-tv-z]{16}$/.test(part))).toBe(true);
  });

  it('refuses a time its 10 characters cannot hold rather than encode it out of order', () => {
    expect(idTimePrefix('evt', new Date(0))).toBe('evt_0000000000');
    expect(idTimePrefix('evt', new Date(32 ** 10 - 1))).toBe('evt_zzzzzzzzzz');
    expect(() => idTimePrefix('evt', new Date(-1))).toThrow(RangeError);
    expect(() => idTimePrefix('evt', new Date(32 ** 10))).toThrow(RangeError);
    expect(() => idTimePrefix('evt', new Date(Number.NaN))).toThrow(RangeError);
  });
});
