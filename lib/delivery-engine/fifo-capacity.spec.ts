import { FifoCapacity } from './fifo-capacity.js';

/** Whether the promise has settled by the time the queued callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('FifoCapacity', () => {
  it('admits batches while they fit, then each one as room is given back', async () => {
    const capacity = new FifoCapacity(10);
    expect(await settled(capacity.acquire(6))).toBe(true);
    expect(await settled(capacity.acquire(4))).toBe(true);
    const third = capacity.acquire(3);
    expect(await settled(third)).toBe(false);
    capacity.release(2);
    expect(await settled(third)).toBe(false);
    capacity.release(1);
    expect(await settled(third)).toBe(true);
  });

  it('admits in arrival order: a small batch does not pass a large one waiting ahead of it', async () => {
    const capacity = new FifoCapacity(10);
    await capacity.acquire(8);
    const large = capacity.acquire(5);
    const small = capacity.acquire(1);
    // Room for the small batch, not for the large one ahead of it.
    capacity.release(1);
    expect(await settled(large)).toBe(false);
    expect(await settled(small)).toBe(false);
    // Room for both: the large batch goes in, and the small one after it.
    capacity.release(3);
    expect(await settled(large)).toBe(true);
    expect(await settled(small)).toBe(true);
  });

  it('admits a batch larger than the bound once nothing else is held', async () => {
    const capacity = new FifoCapacity(10);
    await capacity.acquire(1);
    const oversized = capacity.acquire(25);
    expect(await settled(oversized)).toBe(false);
    capacity.release(1);
    expect(await settled(oversized)).toBe(true);
    const next = capacity.acquire(1);
    expect(await settled(next)).toBe(false);
    capacity.release(25);
    expect(await settled(next)).toBe(true);
  });
});
