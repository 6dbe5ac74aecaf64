import { DEFERRAL_PACES_TRACKED } from '../interview-api.tuning.js';

/**
 * Spreads the deliveries given back for an endpoint over time, one per `intervalMs` (its send pace)
 * and never beyond the horizon: a slow endpoint's backlog comes back a little at a time, rather than
 * all at once to be claimed and given back again.
 */
export class DeferralPacer {
  /** Per endpoint: when (epoch ms) the next delivery given back for it is due. */
  private readonly next = new Map<string, number>();

  constructor(private readonly horizonMs: number) {}

  /** When a delivery given back now is due: not before `earliest`, after those given back before. */
  dueAt(endpointId: string, now: number, earliest: number, intervalMs: number): number {
    const at = Math.min(Math.max(this.next.get(endpointId) ?? 0, earliest), now + this.horizonMs);
    this.next.set(endpointId, at + intervalMs);
    if (this.next.size > DEFERRAL_PACES_TRACKED) this.forget(now);
    return at;
  }

  /** Forgets the endpoints whose pace is in the past; all of them if that is not enough. */
  private forget(now: number): void {
    for (const [endpointId, at] of this.next) if (at <= now) this.next.delete(endpointId);
    if (this.next.size > DEFERRAL_PACES_TRACKED) this.next.clear();
  }
}
