import { createHmac } from 'node:crypto';
import { CursorCodec, type CursorBinding, type CursorPosition } from './cursor-codec.js';

const SECRET = 'unit-cursor-secret-0123456789abcdef';
const OTHER_SECRET = 'another-cursor-secret-0123456789abcdef';
/** Every character a cursor is made of: base64url plus the segment separator. */
const CURSOR_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';

const position: CursorPosition = {
  createdAt: '2026-11-21 09:30:00.123',
  id: 'ses_01jd5x8k2m4n6p8r0t2v4w6y8z',
};
const binding: CursorBinding = {
  list: 'sessions',
  accountId: 'acct_a',
  livemode: false,
  filters: { status: 'completed', created_gte: '2026-11-01T00:00:00.000Z', created_lt: undefined },
};

/**
 * Signs `c1.<payload>` the way the codec does, so that the payload checks (not only the MAC) are
 * exercised. The first test below proves this helper still matches the codec.
 */
function signed(payload: unknown, secret = SECRET): string {
  const key = createHmac('sha256', secret).update('interview-api cursor v1').digest();
  const body = `c1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

describe('CursorCodec', () => {
  const codec = new CursorCodec(SECRET);
  const cursor = codec.encode(position, binding);

  it('round-trips the position for the binding it was issued for', () => {
    expect(cursor).toMatch(/^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(codec.decode(cursor, binding)).toEqual(position);
    // Another codec instance with the same secret (another app instance) accepts it too.
    expect(new CursorCodec(SECRET).decode(cursor, binding)).toEqual(position);
  });

  it('is opaque: neither the list, the account nor the filter values appear in clear', () => {
    const payload = Buffer.from(cursor.split('.')[1], 'base64url').toString('utf8');
    expect(payload).not.toContain('sessions');
    expect(payload).not.toContain('acct_a');
    expect(payload).not.toContain('completed');
    expect(payload).not.toContain('2026-11-01');
  });

  it('accepts every cursor it issues: the longest account and list, and an id of 255 characters', () => {
    // 255 three-byte characters; a control character JSON writes as \u0001; a character of two
    // UTF-16 units (a varchar counts it as one).
    for (const character of ['組', '\u0001', '😀']) {
      const long = character.repeat(255);
      const longest: CursorBinding = { ...binding, list: `webhook_endpoints/${long}`, accountId: long };
      const at: CursorPosition = { createdAt: '2026-11-21 09:30:00.123456', id: long };
      const issued = codec.encode(at, longest);
      expect(codec.decode(issued, longest)).toEqual(at);
      expect(codec.decode(issued, { ...longest, accountId: long.slice(0, -1) })).toBeNull();
    }
  });

  it('refuses to issue a cursor for an id longer than 255 characters, naming the limit', () => {
    expect(() => codec.encode({ ...position, id: 'x'.repeat(256) }, binding)).toThrow(/up to 255 characters/);
  });

  it('ignores filter order and treats an undefined filter as absent', () => {
    const reordered: CursorBinding = {
      ...binding,
      filters: { created_gte: '2026-11-01T00:00:00.000Z', status: 'completed' },
    };
    expect(codec.decode(cursor, reordered)).toEqual(position);
  });

  it('refuses a cursor with any single character changed, anywhere', () => {
    let tried = 0;
    for (let index = 0; index < cursor.length; index++) {
      for (const replacement of CURSOR_ALPHABET) {
        if (replacement === cursor[index]) continue;
        const tampered = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
        tried++;
        if (codec.decode(tampered, binding) !== null) {
          throw new Error(`accepted a cursor with position ${index} changed to "${replacement}"`);
        }
      }
    }
    expect(tried).toBe(cursor.length * (CURSOR_ALPHABET.length - 1));
  });

  it('refuses every truncation of a cursor', () => {
    for (let length = 0; length < cursor.length; length++) {
      expect(codec.decode(cursor.slice(0, length), binding)).toBeNull();
    }
    expect(codec.decode(cursor.slice(1), binding)).toBeNull();
  });

  it('refuses a cursor extended by any character, at either end', () => {
    for (const extra of CURSOR_ALPHABET) {
      expect(codec.decode(cursor + extra, binding)).toBeNull();
      expect(codec.decode(extra + cursor, binding)).toBeNull();
    }
    expect(codec.decode(`${cursor}=`, binding)).toBeNull();
    expect(codec.decode(`${cursor}.${cursor.split('.')[2]}`, binding)).toBeNull();
  });

  it.each([
    ['an empty string', ''],
    ['a word', 'garbage'],
    ['the version only', 'c1'],
    ['separators only', '..'],
    ['an empty payload and MAC', 'c1..'],
    ['an empty payload', `c1..${cursor.split('.')[2]}`],
    ['an empty MAC', `${cursor.split('.').slice(0, 2).join('.')}.`],
    ['an empty version', `.${cursor.split('.').slice(1).join('.')}`],
    ['another version', `c2.${cursor.split('.').slice(1).join('.')}`],
    ['an extra empty segment', cursor.replace('.', '..')],
    ['spaces', ` ${cursor} `],
    ['non-ASCII characters', `${cursor}é`],
    ['a standard-base64 MAC with padding', cursor.replace(/-/g, '+').replace(/_/g, '/') + '='],
    ['a very long string', 'c1.' + 'A'.repeat(5000) + '.' + 'B'.repeat(43)],
    ['a JSON document', JSON.stringify({ t: position.createdAt, i: position.id })],
  ])('refuses %s', (_name, garbage) => {
    expect(codec.decode(garbage, binding)).toBeNull();
  });

  it('refuses a cursor signed with another secret', () => {
    const foreign = new CursorCodec(OTHER_SECRET).encode(position, binding);
    expect(foreign).not.toBe(cursor);
    expect(codec.decode(foreign, binding)).toBeNull();
    expect(new CursorCodec(OTHER_SECRET).decode(cursor, binding)).toBeNull();
  });

  it.each<[string, CursorBinding]>([
    ['another list', { ...binding, list: 'events' }],
    ['another account', { ...binding, accountId: 'acct_b' }],
    ['the other mode', { ...binding, livemode: true }],
    ['another filter value', { ...binding, filters: { ...binding.filters, status: 'scheduled' } }],
    ['a filter removed', { ...binding, filters: { created_gte: '2026-11-01T00:00:00.000Z' } }],
    [
      'a filter added',
      { ...binding, filters: { ...binding.filters, created_lt: '2026-11-30T00:00:00.000Z' } },
    ],
    ['no filters at all', { ...binding, filters: {} }],
  ])('refuses a cursor used for %s', (_name, other) => {
    expect(codec.decode(cursor, other)).toBeNull();
  });

  describe('a correctly signed payload', () => {
    /** The digests of `binding`'s list, account and filters, taken from a real cursor. */
    const issued = JSON.parse(Buffer.from(cursor.split('.')[1], 'base64url').toString('utf8')) as {
      l: string;
      a: string;
      f: string;
    };
    const valid = { v: 1, l: issued.l, a: issued.a, m: 'test', i: position.id, t: position.createdAt };
    const withFilters = (payload: object): object => ({ ...payload, f: issued.f });

    it('is what the codec itself issues (the helper matches the codec)', () => {
      expect(signed(JSON.parse(Buffer.from(cursor.split('.')[1], 'base64url').toString('utf8')))).toBe(
        cursor,
      );
      expect(codec.decode(signed(withFilters(valid)), binding)).toEqual(position);
    });

    it.each<[string, unknown]>([
      ['an array', [1, 2, 3]],
      ['null', null],
      ['a number', 42],
      ['another version', withFilters({ ...valid, v: 2 })],
      ['an extra field', withFilters({ ...valid, x: 'y' })],
      ['a missing field', { ...valid }],
      ['a non-string id', withFilters({ ...valid, i: 7 })],
      ['a non-string time', withFilters({ ...valid, t: null })],
      ['an unknown mode', withFilters({ ...valid, m: 'other' })],
      // The list and account in clear, as they were before they became digests.
      ['a list and account in clear', withFilters({ ...valid, l: 'sessions', a: 'acct_a' })],
    ])('is still refused when it is %s', (_name, payload) => {
      expect(codec.decode(signed(payload), binding)).toBeNull();
    });

    it('is refused when its body is not JSON', () => {
      const key = createHmac('sha256', SECRET).update('interview-api cursor v1').digest();
      const body = `c1.${Buffer.from('{not json').toString('base64url')}`;
      const forged = `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
      expect(codec.decode(forged, binding)).toBeNull();
    });
  });
});
