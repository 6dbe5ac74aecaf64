/** More blocked addresses than this are pruned, expired ones first, then the earliest blocked. */
const MAX_BLOCKED_ADDRESSES = 10_000;

/**
 * The client addresses this process refuses until a time, because they failed to authenticate
 * too often: a blocked address costs neither Redis nor the database a request. Bounded, so that
 * an attacker with many addresses grows it no further than the limit.
 */
export class AddressBlocks {
  private readonly until = new Map<string, number>();

  constructor(private readonly maxEntries = MAX_BLOCKED_ADDRESSES) {}

  /** How long `address` is still refused, in milliseconds: 0 when it is not. */
  remainingMs(address: string, now: number): number {
    const until = this.until.get(address);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.until.delete(address);
    return 0;
  }

  block(address: string, until: number, now: number): void {
    this.until.delete(address);
    if (this.until.size >= this.maxEntries) this.prune(now);
    this.until.set(address, until);
  }

  private prune(now: number): void {
    for (const [address, until] of this.until) if (until <= now) this.until.delete(address);
    // A Map iterates in insertion order, and `block` re-inserts: the first is the earliest blocked.
    for (const address of this.until.keys()) {
      if (this.until.size < this.maxEntries) break;
      this.until.delete(address);
    }
  }
}
