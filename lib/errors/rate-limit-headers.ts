import type { Response } from 'express';

/** A key's bucket once a request has been metered (docs/api-contract.md, Rate limits). */
export interface RateLimitState {
  /** The bucket's size: the requests a second of the key's mode. */
  limit: number;
  /** Whole requests left after this one. */
  remaining: number;
  /** Whole seconds, rounded up, until the bucket is full again. */
  resetSeconds: number;
}

/** The bucket as @nestjs/throttler tells a client its own: on every metered answer, refusals included. */
export function setRateLimitHeaders(response: Response, state: RateLimitState): void {
  response.setHeader('X-RateLimit-Limit', String(state.limit));
  response.setHeader('X-RateLimit-Remaining', String(state.remaining));
  response.setHeader('X-RateLimit-Reset', String(state.resetSeconds));
}
