import { heldLimit } from './held-limit.js';

describe('claimed deliveries a worker holds', () => {
  const DEFAULT_EVENT_BYTES = 256 * 1024;

  it('holds 16 per send slot, and at least one whole batch, however few the send slots', () => {
    expect(heldLimit({ batchSize: 500, concurrency: 1, maxEventBytes: DEFAULT_EVENT_BYTES })).toBe(500);
    expect(heldLimit({ batchSize: 200, concurrency: 50, maxEventBytes: DEFAULT_EVENT_BYTES })).toBe(800);
  });

  it('holds fewer where events as large as maxEventBytes would exceed the body budget', () => {
    const mib = 1024 * 1024;
    expect(heldLimit({ batchSize: 200, concurrency: 50, maxEventBytes: mib })).toBe(256);
    expect(heldLimit({ batchSize: 200, concurrency: 50, maxEventBytes: mib / 2 })).toBe(512);
    // A batch always fits, whatever the budget says.
    expect(heldLimit({ batchSize: 300, concurrency: 50, maxEventBytes: mib })).toBe(300);
  });

  it('holds two per send slot at least, so that every slot can be kept busy', () => {
    expect(heldLimit({ batchSize: 200, concurrency: 500, maxEventBytes: 1024 * 1024 })).toBe(1000);
    expect(heldLimit({ batchSize: 200, concurrency: 2000, maxEventBytes: DEFAULT_EVENT_BYTES })).toBe(4000);
  });
});
