import { FifoCapacity } from './fifo-capacity.js';

/**
 * Bounds the sends in flight across every batch a worker process runs at once. Several batches
 * queue hundreds of sends behind the bound; a freed slot passes straight to the oldest waiting
 * send.
 */
export class SendLimiter {
  private readonly slots: FifoCapacity;

  constructor(limit: number) {
    this.slots = new FifoCapacity(limit);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.slots.acquire(1);
    try {
      return await task();
    } finally {
      this.slots.release(1);
    }
  }
}
