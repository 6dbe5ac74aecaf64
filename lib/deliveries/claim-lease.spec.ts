import { CLAIM_LEASE_MS, CLAIM_RENEWAL_MS, heldLimit } from './claim-lease.js';

describe('claimed deliveries a worker holds', () => {
  it('holds 16 per send slot, and at least one whole batch, however few the send slots', () => {
    expect(heldLimit({ batchSize: 500, concurrency: 1 })).toBe(500);
    expect(heldLimit({ batchSize: 200, concurrency: 50 })).toBe(800);
  });

  it('renews a claim often enough that one failed renewal lets none lapse', () => {
    expect(2 * CLAIM_RENEWAL_MS).toBeLessThan(CLAIM_LEASE_MS);
  });
});
