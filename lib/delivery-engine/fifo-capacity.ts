/**
 * A bounded count of units that callers take and give back: the deliveries a worker process holds
 * claimed, so that what it holds drains in a bounded time (a claim is renewed while held, but a
 * process that claims without bound would give most of its claims back unsent). Requests are let
 * in first come, first served: room given back passes straight to the
 * oldest waiting request, which none arriving meanwhile can take, and the queue is taken from its
 * head by index (an array's `shift` moves every element). A request larger than the bound still
 * goes in alone, so that nothing waits forever.
 */
export class FifoCapacity {
  private held = 0;
  private waiting: { count: number; admit: () => void }[] = [];
  private head = 0;

  constructor(readonly limit: number) {}

  /** Resolves once `count` more units may be held; the caller then holds them. */
  acquire(count: number): Promise<void> {
    if (this.head === this.waiting.length && this.fits(count)) {
      this.held += count;
      return Promise.resolve();
    }
    return new Promise((admit) => this.waiting.push({ count, admit }));
  }

  /** Gives back `count` units. */
  release(count: number): void {
    this.held -= count;
    while (this.head < this.waiting.length && this.fits(this.waiting[this.head].count)) {
      const next = this.waiting[this.head++];
      this.held += next.count;
      next.admit();
    }
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    }
  }

  private fits(count: number): boolean {
    return this.held === 0 || this.held + count <= this.limit;
  }
}
