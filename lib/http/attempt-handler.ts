import type { IncomingHttpHeaders } from 'node:http';

import type { Dispatcher } from 'undici';

import { attemptErrorCode, type AttemptErrorCode } from './attempt-error.js';
import { CappedBody } from './capped-body.js';
import { ReplyOverBudgetError } from './reply-byte-budget.js';
import { readRetryAfter } from './retry-after.js';

/** What one attempt came to, before its duration is added. */
export interface AttemptOutcome {
  /** Set whenever a status line arrived, even if the attempt failed afterwards. */
  status: number | null;
  body: string | null;
  error: AttemptErrorCode | null;
  /** How long a throttling receiver (429, 503) asked us to wait before the next attempt. */
  retryAfterMs: number | null;
}

/** Why an attempt was cut short by us rather than by the receiver. */
class AttemptEnded extends Error {}

/**
 * Takes one attempt's reply straight from undici's dispatcher and settles exactly once, at the first
 * of: the reply's end, the byte cap, an error, or the deadline. The deadline covers the wait for a
 * socket too; what is under way then is aborted, closing the connection rather than draining it.
 */
export class AttemptHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status: number | null = null;
  private retryAfterMs: number | null = null;
  private readonly body = new CappedBody();
  private settled = false;
  private readonly deadline: NodeJS.Timeout;

  /** `clockOffsetMs`: how far the module's clock is ahead of the process's (Date.now). */
  constructor(
    timeoutMs: number,
    private readonly clockOffsetMs: number,
    private readonly settle: (outcome: AttemptOutcome) => void,
  ) {
    this.deadline = setTimeout(() => this.expire(), timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // The deadline passed while the request waited for a socket.
    if (this.settled) controller.abort(new AttemptEnded('deadline'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // A 1xx is informational; the final status follows it.
    if (statusCode < 200) return;
    this.status = statusCode;
    const retryAfter = headers['retry-after'];
    if (retryAfter !== undefined) {
      this.retryAfterMs = readRetryAfter(statusCode, retryAfter, Date.now() + this.clockOffsetMs);
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled || this.body.add(chunk)) return;
    this.finish(this.httpOutcome());
    controller.abort(new AttemptEnded('reply larger than the read cap'));
  }

  onResponseEnd(): void {
    this.finish(this.httpOutcome());
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    // A reply cut off for the bytes it took after its status line is taken as one over the read
    // cap is: the status is the answer. Before a status, it is a connection that failed.
    if (error instanceof ReplyOverBudgetError && this.status !== null) this.finish(this.httpOutcome());
    else this.finish(this.failedOutcome(attemptErrorCode(error)));
  }

  private expire(): void {
    if (this.settled) return;
    this.finish(this.failedOutcome('timeout'));
    this.controller?.abort(new AttemptEnded('deadline'));
  }

  private httpOutcome(): AttemptOutcome {
    const status = this.status ?? 0;
    return {
      status: this.status,
      body: this.body.text(),
      error: status >= 200 && status < 300 ? null : 'http_error',
      retryAfterMs: this.retryAfterMs,
    };
  }

  /** What arrived before the failure is kept: the status line, and the reply read so far. */
  private failedOutcome(error: AttemptErrorCode): AttemptOutcome {
    return {
      status: this.status,
      body: this.status === null ? null : this.body.text(),
      error,
      retryAfterMs: this.retryAfterMs,
    };
  }

  private finish(outcome: AttemptOutcome): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    this.settle(outcome);
  }
}
