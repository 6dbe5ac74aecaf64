import { claimLeaseMs, HELD_PER_SEND_SLOT, heldLimit } from './claim-lease.js';

describe('claimLeaseMs', () => {
  it('outlasts the wait of the last delivery a worker holds, and its send, when every attempt times out', () => {
    for (const options of [
      { timeoutMs: 10_000, batchSize: 100, concurrency: 50 },
      { timeoutMs: 10_000, batchSize: 100, concurrency: 1 },
      { timeoutMs: 2_000, batchSize: 500, concurrency: 7 },
      { timeoutMs: 30_000, batchSize: 1, concurrency: 1_000 },
    ]) {
      const rounds = Math.ceil(heldLimit(options) / options.concurrency) + HELD_PER_SEND_SLOT;
      const lastStartsAfter = rounds * options.timeoutMs;
      expect(claimLeaseMs(options)).toBeGreaterThan(lastStartsAfter + options.timeoutMs);
    }
  });

  it('holds at least one whole batch, however few the send slots', () => {
    expect(heldLimit({ timeoutMs: 10_000, batchSize: 500, concurrency: 1 })).toBe(500);
    expect(heldLimit({ timeoutMs: 10_000, batchSize: 200, concurrency: 50 })).toBe(800);
  });

  it('is 360 s with the default options', () => {
    expect(claimLeaseMs({ timeoutMs: 10_000, batchSize: 200, concurrency: 50 })).toBe(360_000);
  });
});
