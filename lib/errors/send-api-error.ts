import type { Response } from 'express';
import { type ApiError, RateLimitedError } from './api-error.js';

/**
 * The headers an error calls for besides its body: `Retry-After` when a rate limit refused the
 * request. Set apart from the body so that the guard can set them before it throws, for the
 * filters (Nest's default, a host's) that know nothing of them.
 */
export function setApiErrorHeaders(response: Response, error: ApiError): void {
  if (error instanceof RateLimitedError) response.setHeader('Retry-After', String(error.retryAfterSeconds));
}

/** Answers with the error in the envelope, and with the headers it calls for. */
export function sendApiError(response: Response, error: ApiError): void {
  setApiErrorHeaders(response, error);
  response.status(error.getStatus()).json(error.toEnvelope());
}
