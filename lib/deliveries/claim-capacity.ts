/**
 * Bounds the deliveries a worker process holds claimed (from its claim until its outcome is
 * recorded), so that the claim lease can outlast the wait of the last one held. A batch asks for
 * room for all its ids before claiming; batches are let in first come, first served, and a batch
 * larger than the bound still goes in alone, so that nothing waits forever.
 */
export class ClaimCapacity {
  private held = 0;
  private waiting: { count: number; admit: () => void }[] = [];
  private head = 0;

  constructor(readonly limit: number) {}

  /** Resolves once `count` more deliveries may be held; the caller then holds them. */
  acquire(count: number): Promise<void> {
    if (this.head === this.waiting.length && this.fits(count)) {
      this.held += count;
      return Promise.resolve();
    }
    return new Promise((admit) => this.waiting.push({ count, admit }));
  }

  /** Gives back room for `count` deliveries (recorded, or not claimed after all). */
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
