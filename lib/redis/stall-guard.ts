import { answerWithin } from './answer-within.js';

/**
 * Bounds what waits on one Redis connection while Redis stalls: a command given up on stays queued
 * until Redis answers or TCP gives up (up to a quarter of an hour), so once one passes its deadline
 * unanswered, every other ask is refused at once until it settles.
 */
export class StallGuard {
  private unanswered: Promise<unknown> | null = null;

  /** Whether a command has gone past its deadline and still waits for its answer. */
  get stalled(): boolean {
    return this.unanswered !== null;
  }

  /** `send`'s answer, or a rejection after `ms`, or at once without sending while Redis stalls. */
  async answerWithin<T>(send: () => Promise<T>, ms: number): Promise<T> {
    if (this.unanswered) throw new Error('Redis has not answered an earlier command yet');
    const answer = send();
    let settled = false;
    const settle = (): void => {
      settled = true;
      // Redis answers a connection's commands in order: the last one to time out is the last to
      // settle, and its answer means the earlier ones have theirs.
      if (this.unanswered === answer) this.unanswered = null;
    };
    answer.then(settle, settle);
    try {
      return await answerWithin(answer, ms);
    } catch (error) {
      if (!settled) this.unanswered = answer;
      throw error;
    }
  }
}
