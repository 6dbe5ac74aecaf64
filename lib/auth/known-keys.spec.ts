import { type KnownKey, KnownKeys } from './known-keys.js';

const known = (id: string, readAt: number): KnownKey => ({
  key: { id, accountId: 'acct_1', livemode: false, scopes: [] },
  lastUsedAt: null,
  readAt,
  generation: 1,
});

describe('KnownKeys', () => {
  it('keeps at most its bound, dropping the least recently stored first', () => {
    const keys = new KnownKeys(2, 60_000);
    keys.set('a', known('key_a', 0));
    keys.set('b', known('key_b', 0));
    keys.set('a', known('key_a', 1));
    keys.set('c', known('key_c', 2));
    expect(keys.get('b', 3)).toBeUndefined();
    expect(keys.get('a', 3)?.key.id).toBe('key_a');
    expect(keys.get('c', 3)?.key.id).toBe('key_c');
  });

  it('forgets a key once it is as old as the bound on age, and on demand', () => {
    const keys = new KnownKeys(10, 1_000);
    keys.set('a', known('key_a', 5_000));
    keys.set('b', known('key_b', 5_000));
    expect(keys.get('a', 5_999)?.key.id).toBe('key_a');
    expect(keys.get('a', 6_000)).toBeUndefined();
    expect(keys.get('a', 5_000)).toBeUndefined();
    keys.delete('b');
    expect(keys.get('b', 5_000)).toBeUndefined();
  });
});
