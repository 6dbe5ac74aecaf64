/**
 * A bounded count of units taken and given back: the deliveries a worker process holds claimed, so
 * that what it holds drains in bounded time. First come, first served: freed room goes to the oldest
 * waiting request, and one larger than the bound goes in alone, so that nothing waits forever.
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
