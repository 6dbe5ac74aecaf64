import {
  CLAIM_LEASE_MS,
  CLAIM_RENEWAL_MS,
  CLOCK_TOLERANCE_MS,
  DUE_SKEW_ALLOWANCE_MS,
  RECORD_RETRY_PAUSES_MS,
  RESPONSE_READ_LIMIT_BYTES,
  STORED_BODY_MAX_CHARS,
} from './interview-api.tuning.js';

describe('the tuning constants hold to each other', () => {
  it('renews a claim often enough that one failed renewal lets none lapse', () => {
    expect(2 * CLAIM_RENEWAL_MS).toBeLessThan(CLAIM_LEASE_MS);
  });

  it('writes a failed group of outcomes again well within a claim lease', () => {
    expect(RECORD_RETRY_PAUSES_MS.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(CLAIM_LEASE_MS / 2);
  });

  it('reads enough of a reply to fill the stored body, four UTF-8 bytes a character at most', () => {
    expect(RESPONSE_READ_LIMIT_BYTES).toBeGreaterThanOrEqual(4 * STORED_BODY_MAX_CHARS);
  });

  it('tolerates less clock skew than a claim takes a delivery early', () => {
    expect(CLOCK_TOLERANCE_MS).toBeLessThan(DUE_SKEW_ALLOWANCE_MS);
  });
});
