import type { DeliveryOutcome } from '../delivery-store/claimed-delivery.js';
import { RECORD_RETRY_PAUSES_MS, RECORD_WINDOW_MS } from '../interview-api.tuning.js';

interface Waiting {
  outcome: DeliveryOutcome;
  done: () => void;
}

/**
 * Records each outcome as its send ends, so that a receiver taking its whole deadline holds back only
 * its own deliveries; written in groups, each within RECORD_WINDOW_MS or at once when full.
 */
export class OutcomeRecorder {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param write records a group of outcomes; a group it still fails to write after
   *   RECORD_RETRY_PAUSES_MS is reported to `failed`, and its deliveries stay claimed until their
   *   lease expires, when the sweeper queues them again.
   */
  constructor(
    private readonly write: (outcomes: DeliveryOutcome[]) => Promise<void>,
    private readonly maxGroup: number,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Resolves once the outcome is written, or its group has failed to be. */
  add(outcome: DeliveryOutcome): Promise<void> {
    return new Promise((done) => {
      this.waiting.push({ outcome, done });
      if (this.waiting.length >= this.maxGroup) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), RECORD_WINDOW_MS);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const group = this.waiting;
    this.waiting = [];
    this.writeAgainOnFailure(group.map((waiting) => waiting.outcome))
      .catch((error: unknown) => this.failed(error))
      .finally(() => group.forEach((waiting) => waiting.done()));
  }

  private async writeAgainOnFailure(outcomes: DeliveryOutcome[]): Promise<void> {
    for (const pauseMs of RECORD_RETRY_PAUSES_MS) {
      try {
        return await this.write(outcomes);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
    return this.write(outcomes);
  }
}
