/**
 * Bounds the sends in flight across every batch a worker process runs at once. Several batches
 * queue hundreds of sends behind the bound, so the queue is taken from its head by index (an
 * array's `shift` moves every element) and a freed slot passes straight to the oldest waiting
 * send, which no send arriving meanwhile can take.
 */
export class SendLimiter {
  private active = 0;
  private waiting: (() => void)[] = [];
  private head = 0;
  private readonly release = (): void => {
    const next = this.waiting[this.head];
    if (next === undefined) {
      this.active--;
      return;
    }
    this.head++;
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    }
    next();
  };

  constructor(private readonly limit: number) {}

  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) {
      this.active++;
      return this.start(task);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.start(task));
  }

  /** Runs `task` in a slot already taken, and frees the slot when it settles. */
  private start<T>(task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      running = Promise.reject(error as Error);
    }
    running.then(this.release, this.release);
    return running;
  }
}
