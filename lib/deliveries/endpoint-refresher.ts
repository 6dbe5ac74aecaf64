import type { ClaimedDelivery, DeliveryTarget } from './claimed-delivery.js';

/** The endpoints as they are now, by id; an id missing from the answer is deleted. */
export type TargetLoader = (endpointIds: string[]) => Promise<Map<string, DeliveryTarget>>;

interface Read {
  target: DeliveryTarget | null;
  readAt: number;
}

/** The endpoints wanted in this tick, and their one read. */
interface Batch {
  ids: Set<string>;
  targets: Promise<Map<string, DeliveryTarget>>;
}

/**
 * What a delivery is sent to when its turn comes. Its claim read the endpoint, but a delivery may
 * wait for a send slot for many seconds (its endpoint's fair share of them), and meanwhile the
 * secret may be rotated, the URL changed, or the endpoint disabled or deleted: each of those must
 * hold for every attempt that starts afterwards. So an endpoint read longer ago than `maxAgeMs` is
 * read again, for the ids wanted in the same tick in one query, and that read serves every
 * delivery of the endpoint for `maxAgeMs`. A delivery sent soon after its claim, as under an
 * ordinary load, costs nothing more.
 */
export class EndpointRefresher {
  private readonly reads = new Map<string, Read>();
  private next: Batch | null = null;

  constructor(
    private readonly load: TargetLoader,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The delivery's endpoint as read at most `maxAgeMs` ago; null once deleted. */
  async current(delivery: ClaimedDelivery): Promise<DeliveryTarget | null> {
    const now = this.now();
    if (now - delivery.claimedAt.getTime() < this.maxAgeMs) return delivery.target;
    const read = this.reads.get(delivery.endpointId);
    if (read !== undefined && now - read.readAt < this.maxAgeMs) return read.target;
    if (this.next === null) {
      const ids = new Set<string>();
      const targets = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.read(ids));
      this.next = { ids, targets };
    }
    this.next.ids.add(delivery.endpointId);
    return (await this.next.targets).get(delivery.endpointId) ?? null;
  }

  private async read(ids: Set<string>): Promise<Map<string, DeliveryTarget>> {
    this.next = null;
    const readAt = this.now();
    this.forgetStale(readAt);
    const targets = await this.load([...ids]);
    for (const id of ids) this.reads.set(id, { target: targets.get(id) ?? null, readAt });
    return targets;
  }

  /** Reads too old to serve anyone: an endpoint whose deliveries stopped waiting leaves no trace. */
  private forgetStale(now: number): void {
    for (const [endpointId, read] of this.reads) {
      if (now - read.readAt >= this.maxAgeMs) this.reads.delete(endpointId);
    }
  }
}
