import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, parseApiKey } from './api-key-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Everything a user could plausibly type in place of a key character. */
const SUBSTITUTES = `${BASE62}_- .é`;

describe('API key format', () => {
  it.each([
    ['iv', 'test', /^iv_test_[0-9A-Za-z]{38}$/],
    ['iv', 'live', /^iv_live_[0-9A-Za-z]{38}$/],
    ['acme42', 'live', /^acme42_live_[0-9A-Za-z]{38}$/],
  ] as const)('generates %s %s keys as <prefix>_<mode>_<38 base62>', (prefix, mode, format) => {
    const key = generateApiKey(prefix, mode);
    expect(key).toMatch(format);
    expect(parseApiKey(prefix, key)).toEqual({ mode });
  });

  it('never generates the same key twice and spreads over the whole alphabet', () => {
    const keys = Array.from({ length: 500 }, () => generateApiKey('iv', 'test'));
    expect(new Set(keys).size).toBe(keys.length);
    const used = new Set(keys.flatMap((key) => [...key.slice('iv_test_'.length, -6)]));
    // 16,000 random characters: every one of the 62 shows up (missing one by chance is ~1e-100).
    expect(used.size).toBe(62);
  });

  it('refuses every single-character substitution of a key (prefix, mode, separators, checksum)', () => {
    for (const mode of ['test', 'live'] as const) {
      const key = generateApiKey('iv', mode);
      for (let index = 0; index < key.length; index++) {
        for (const replacement of SUBSTITUTES) {
          if (replacement === key[index]) continue;
          const typo = key.slice(0, index) + replacement + key.slice(index + 1);
          if (parseApiKey('iv', typo) !== null) {
            throw new Error(`accepted ${typo}: position ${index} changed to "${replacement}"`);
          }
        }
      }
    }
  });

  it('refuses a key with two neighbouring characters swapped, one dropped or one added', () => {
    const key = generateApiKey('iv', 'live');
    for (let index = 0; index < key.length; index++) {
      if (index + 1 < key.length && key[index] !== key[index + 1]) {
        const swapped = key.slice(0, index) + key[index + 1] + key[index] + key.slice(index + 2);
        expect(parseApiKey('iv', swapped)).toBeNull();
      }
      expect(parseApiKey('iv', key.slice(0, index) + key.slice(index + 1))).toBeNull();
      expect(parseApiKey('iv', key.slice(0, index) + 'A' + key.slice(index))).toBeNull();
    }
  });

  it('refuses a key of another prefix and anything that is not a key', () => {
    const key = generateApiKey('iv', 'test');
    expect(parseApiKey('ivx', key)).toBeNull();
    expect(parseApiKey('iv', generateApiKey('xy', 'test'))).toBeNull();
    expect(parseApiKey('iv', key.replace('_test_', '_prod_'))).toBeNull();
    expect(parseApiKey('iv', '')).toBeNull();
    expect(parseApiKey('iv', `iv_test_${'A'.repeat(38)}`)).toBeNull();
    expect(parseApiKey('iv', key.toLowerCase())).toBeNull();
  });

  describe('hashApiKey', () => {
    it('is the SHA-256 of the key, in lowercase hex', () => {
      // The NIST test vector for "abc".
      expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      const key = generateApiKey('iv', 'live');
      expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
      expect(hashApiKey(key)).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
    });

    it('is stable for one key and differs between two keys', () => {
      const first = generateApiKey('iv', 'test');
      const second = generateApiKey('iv', 'test');
      expect(first).not.toBe(second);
      expect(hashApiKey(first)).toBe(hashApiKey(first));
      expect(hashApiKey(first)).not.toBe(hashApiKey(second));
      expect(hashApiKey(first)).not.toContain(first);
    });
  });
});
