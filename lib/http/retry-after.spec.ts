import { readRetryAfter } from './retry-after.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('readRetryAfter', () => {
  it('reads delay-seconds on a 429 and a 503', () => {
    expect(readRetryAfter(429, '120', NOW)).toBe(120_000);
    expect(readRetryAfter(503, ' 0 ', NOW)).toBe(0);
    expect(readRetryAfter(429, ['30', '60'], NOW)).toBe(30_000);
  });

  it('reads an HTTP date against now', () => {
    expect(readRetryAfter(503, 'Sun, 22 Nov 2026 12:05:00 GMT', NOW)).toBe(300_000);
  });

  it('ignores a date already past, and anything that is neither form', () => {
    expect(readRetryAfter(429, 'Sun, 22 Nov 2026 11:59:59 GMT', NOW)).toBeNull();
    for (const value of ['', '-5', '1.5', '2e3', 'soon', '20 26', '2026-11-22T12:05:00Z', 'Sunday']) {
      expect(readRetryAfter(429, value, NOW)).toBeNull();
    }
    expect(readRetryAfter(429, undefined, NOW)).toBeNull();
    expect(readRetryAfter(429, [], NOW)).toBeNull();
  });

  it('ignores the header on every other status', () => {
    for (const status of [200, 301, 400, 500, 502, 504])
      expect(readRetryAfter(status, '120', NOW)).toBeNull();
  });
});
