/** Addresses remembered at most: past it, expired ones are dropped first, then the earliest counted. */
const MAX_ADDRESSES = 10_000;

interface Known {
  /** Failed authentications counted in Redis for the address's window, as last answered. */
  count: number;
  /** When that window ends, in this process's milliseconds. */
  until: number;
}

/**
 * What this process knows of each client address's failed authentications (the count Redis last
 * answered for its window) and of its key look-ups in flight. A look-up may start while the two
 * together are under the limit: a burst of concurrent requests is held to the limit before their
 * failures have been counted, not only once they have. Bounded, so that an attacker with many
 * addresses grows it no further than its bound.
 */
export class AddressFailures {
  private readonly known = new Map<string, Known>();
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly maxAddresses = MAX_ADDRESSES,
  ) {}

  /**
   * Starts a look-up for `address` and answers 0, or answers how many milliseconds to wait instead:
   * until the window ends once the limit is reached, a second while look-ups in flight fill it.
   * A look-up started is ended with `end`.
   */
  begin(address: string, now: number): number {
    const known = this.knownNow(address, now);
    const count = known?.count ?? 0;
    if (known !== undefined && count >= this.limit) return known.until - now;
    const pending = this.inFlight.get(address) ?? 0;
    if (count + pending >= this.limit) return 1000;
    this.inFlight.set(address, pending + 1);
    return 0;
  }

  end(address: string): void {
    const pending = this.inFlight.get(address) ?? 0;
    if (pending <= 1) this.inFlight.delete(address);
    else this.inFlight.set(address, pending - 1);
  }

  /** Redis's answer for `address`: its count of failures, and the milliseconds its window has left. */
  counted(address: string, count: number, leftMs: number, now: number): void {
    this.known.delete(address);
    if (this.known.size >= this.maxAddresses) this.prune(now);
    this.known.set(address, { count, until: now + leftMs });
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
