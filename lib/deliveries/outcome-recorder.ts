import type { DeliveryOutcome } from './claimed-delivery.js';

interface Waiting {
  outcome: DeliveryOutcome;
  done: () => void;
}

/** How long an outcome may wait for others to share its statement. */
const WINDOW_MS = 20;

/**
 * Records outcomes as their sends end, not when the slowest send of their batch ends: a receiver
 * that takes its whole deadline to answer then holds back its own deliveries only. Outcomes are
 * written in groups: each within WINDOW_MS of its send's end, and a group as soon as it is full,
 * so that under load a statement records a whole group and the statements per delivery stay few.
 */
export class OutcomeRecorder {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param write records a group of outcomes; a failure is reported to `failed`, and the group's
   *   deliveries stay claimed until their lease expires, when the sweeper queues them again.
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
      else this.timer ??= setTimeout(() => this.flush(), WINDOW_MS);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const group = this.waiting;
    this.waiting = [];
    this.write(group.map((waiting) => waiting.outcome))
      .catch((error: unknown) => this.failed(error))
      .finally(() => group.forEach((waiting) => waiting.done()));
  }
}
