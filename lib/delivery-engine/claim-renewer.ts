import { CLAIM_RENEWAL_MS } from '../interview-api.tuning.js';
import type { ClaimedDelivery } from '../delivery-store/claimed-delivery.js';
import { CLAIMS_PER_RENEWAL } from '../delivery-store/bound-statements.js';

/**
 * Keeps the claims of the deliveries a worker process holds: every CLAIM_RENEWAL_MS, from their
 * claim until they are let go, all of them in one renewal (of CLAIMS_PER_RENEWAL claims a
 * statement). A failed renewal is reported and the next one tries again, before any claim lapses.
 */
export class ClaimRenewer {
  private readonly held = new Map<string, ClaimedDelivery>();
  private readonly timer: NodeJS.Timeout;
  /** The renewal under way, if one is: never two at once. */
  private renewal: Promise<void> | null = null;

  constructor(
    private readonly renew: (held: ClaimedDelivery[]) => Promise<void>,
    private readonly failed: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => this.renewAll(), CLAIM_RENEWAL_MS);
    this.timer.unref();
  }

  hold(deliveries: readonly ClaimedDelivery[]): void {
    for (const delivery of deliveries) this.held.set(delivery.id, delivery);
  }

  /**
   * Once its outcome is recorded (or could not be): a renewal no longer names it. Only this claim:
   * a later claim of the same delivery (this one lapsed and the delivery was claimed again here)
   * is still held and still renewed.
   */
  letGo(delivery: ClaimedDelivery): void {
    if (this.held.get(delivery.id) === delivery) this.held.delete(delivery.id);
  }

  /**
   * Renews no more; resolves once a renewal under way has ended, so that a caller closing the
   * database after it does not end its statement halfway.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.renewal;
  }

  private renewAll(): void {
    if (this.renewal || this.held.size === 0) return;
    this.renewal = this.renewHeld().finally(() => (this.renewal = null));
  }

  private async renewHeld(): Promise<void> {
    const held = [...this.held.values()];
    try {
      for (let start = 0; start < held.length; start += CLAIMS_PER_RENEWAL) {
        await this.renew(held.slice(start, start + CLAIMS_PER_RENEWAL));
      }
    } catch (error) {
      this.failed(error);
    }
  }
}
