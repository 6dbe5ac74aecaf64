import {
  FAILED_AUTHENTICATION_ADDRESSES,
  FAILED_AUTHENTICATION_WAITING_PER_LIMIT,
} from '../interview-api.tuning.js';

interface Known {
  /** Failed authentications counted in Redis for the address's window, as last answered. */
  count: number;
  /** When that window ends, in this process's milliseconds. */
  until: number;
}

/** A look-up that may start, or why not: the address is refused for this many milliseconds. */
export type LookupAdmission = { started: true } | { started: false; refusedForMs: number; burst: boolean };

const STARTED: LookupAdmission = { started: true };

/**
 * Per client address, the failures Redis last counted plus the look-ups in flight: a look-up starts
 * while the two are under the limit, else waits its turn, so a burst is held to the limit before its
 * failures are counted. Bounded in addresses, so that an attacker with many cannot grow it.
 */
export class AddressFailures {
  private readonly known = new Map<string, Known>();
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(
    private readonly limit: number,
    private readonly maxAddresses = FAILED_AUTHENTICATION_ADDRESSES,
  ) {}

  /**
   * Starts a look-up for `address` once it may (at once, or in its turn after those already
   * waiting), or answers that it is refused: until the window ends once the limit is reached, or
   * for a second when too many wait. A look-up started is ended with `end`.
   */
  async begin(address: string, now: () => number): Promise<LookupAdmission> {
    let woken = false;
    for (;;) {
      const at = now();
      const known = this.knownNow(address, at);
      if (known !== undefined && known.count >= this.limit) {
        return { started: false, refusedForMs: known.until - at, burst: false };
      }
      const queue = this.waiting.get(address) ?? [];
      const room = this.room(address, known?.count ?? 0);
      // Those already waiting go first: a newcomer finding room they have not been woken to yet
      // (a window ended meanwhile) wakes them, and waits behind them.
      if (room > 0 && (woken || queue.length === 0)) {
        this.inFlight.set(address, (this.inFlight.get(address) ?? 0) + 1);
        return STARTED;
      }
      if (!woken && queue.length >= FAILED_AUTHENTICATION_WAITING_PER_LIMIT * this.limit) {
        return { started: false, refusedForMs: 1000, burst: true };
      }
      this.waiting.set(address, queue);
      // A waiter woken to no room (another took it first) keeps its place at the front.
      const waited = new Promise<void>((resolve) => (woken ? queue.unshift(resolve) : queue.push(resolve)));
      if (room > 0) this.wake(address, room);
      await waited;
      woken = true;
    }
  }

  end(address: string, now: number): void {
    const pending = this.inFlight.get(address) ?? 0;
    if (pending <= 1) this.inFlight.delete(address);
    else this.inFlight.set(address, pending - 1);
    this.wake(address, Math.max(1, this.room(address, this.knownNow(address, now)?.count ?? 0)));
  }

  /** How many more look-ups `address` may have in flight, with `count` failures counted. */
  private room(address: string, count: number): number {
    return this.limit - count - (this.inFlight.get(address) ?? 0);
  }

  /** Redis's answer for `address`: its count of failures, and the milliseconds its window has left. */
  counted(address: string, count: number, leftMs: number, now: number): void {
    this.known.delete(address);
    if (this.known.size >= this.maxAddresses) this.prune(now);
    this.known.set(address, { count, until: now + leftMs });
    // Refused now, every look-up waiting is told at once; in a new window, as many as it has room for.
    this.wake(address, count >= this.limit ? Infinity : this.room(address, count));
  }

  /** Lets up to `count` look-ups waiting for `address` check again, the earliest first. */
  private wake(address: string, count: number): void {
    const queue = this.waiting.get(address);
    if (queue === undefined || count <= 0) return;
    for (const resolve of queue.splice(0, count)) resolve();
    if (queue.length === 0) this.waiting.delete(address);
  }

  private knownNow(address: string, now: number): Known | undefined {
    const known = this.known.get(address);
    if (known === undefined || known.until > now) return known;
    this.known.delete(address);
    return undefined;
  }

  private prune(now: number): void {
    for (const [address, known] of this.known) if (known.until <= now) this.known.delete(address);
    // A Map iterates in insertion order, and `counted` re-inserts: the first is the earliest counted.
    for (const address of this.known.keys()) {
      if (this.known.size < this.maxAddresses) break;
      this.known.delete(address);
    }
  }
}
