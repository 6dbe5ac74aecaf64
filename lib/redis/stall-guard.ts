import { answerWithin } from './answer-within.js';

/**
 * Bounds what waits on one Redis connection while Redis stalls (a silent partition, a server that
 * keeps its connections open and answers nothing). Giving up waiting on a command does not take it
 * back: it stays in the connection's queue until Redis answers or TCP gives up, which can take a
 * quarter of an hour. So once a command has gone past its deadline unanswered, no other is sent on
 * the connection until that one is answered (or fails); until then every ask is refused at once.
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
