import type { ClaimedDelivery, DeliveryTarget } from '../delivery-store/claimed-delivery.js';
import { MAX_STALE_ENDPOINT_READS } from '../interview-api.tuning.js';

/** The endpoints as they are now, by id; an id missing from the answer is deleted. */
export type TargetLoader = (endpointIds: string[]) => Promise<Map<string, DeliveryTarget>>;

interface Read {
  target: DeliveryTarget | null;
  readAt: number;
}

/** The endpoints wanted in this tick, and their one read. */
interface Batch {
  ids: Set<string>;
  done: Promise<void>;
}

/** The endpoint's reads kept arriving too old to serve: what it is now cannot be told. */
export class StaleEndpointReadError extends Error {
  constructor(maxAgeMs: number) {
    super(`Reads of webhook endpoints took longer than ${maxAgeMs} ms`);
    this.name = 'StaleEndpointReadError';
  }
}

/**
 * What a delivery is sent to when its turn comes (a rotated secret, a new URL, a disable or delete
 * included): a read older than `maxAgeMs` is taken again, in one query for the endpoints wanted in the
 * same tick, and serves them for `maxAgeMs`. A delivery sent soon after its claim costs nothing more.
 */
export class EndpointRefresher {
  private readonly reads = new Map<string, Read>();
  private next: Batch | null = null;

  constructor(
    private readonly load: TargetLoader,
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * The delivery's endpoint as read at most `maxAgeMs` ago; null once deleted. Rejects with a
   * StaleEndpointReadError when the reads keep arriving older than that (an attempt must not start
   * on what may be stale), and with a read's own error when the database refuses it.
   */
  async current(delivery: ClaimedDelivery): Promise<DeliveryTarget | null> {
    if (this.now() - delivery.claimedAt.getTime() < this.maxAgeMs) return delivery.target;
    for (let reads = 0; reads < MAX_STALE_ENDPOINT_READS; reads++) {
      const read = this.reads.get(delivery.endpointId);
      if (read !== undefined && this.now() - read.readAt < this.maxAgeMs) return read.target;
      await this.readSoon(delivery.endpointId);
    }
    throw new StaleEndpointReadError(this.maxAgeMs);
  }

  /** Adds the endpoint to the read of this tick, and waits for that read. */
  private async readSoon(endpointId: string): Promise<void> {
    if (this.next === null) {
      const ids = new Set<string>();
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.read(ids));
      this.next = { ids, done };
    }
    this.next.ids.add(endpointId);
    await this.next.done;
  }

  private async read(ids: Set<string>): Promise<void> {
    this.next = null;
    const readAt = this.now();
    this.forgetStale(readAt);
    const targets = await this.load([...ids]);
    for (const id of ids) this.reads.set(id, { target: targets.get(id) ?? null, readAt });
  }

  /** Reads too old to serve anyone: an endpoint whose deliveries stopped waiting leaves no trace. */
  private forgetStale(now: number): void {
    for (const [endpointId, read] of this.reads) {
      if (now - read.readAt >= this.maxAgeMs) this.reads.delete(endpointId);
    }
  }
}
