import type { Response } from 'express';
import { requestIdOf } from '../identifiers/request-id.js';
import { type ApiError, RateLimitedError } from './api-error.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';

/**
 * The headers an error calls for: a 401's scheme and realm (RFC 7235 §3.1, RFC 6750 §3), a 429's
 * `Retry-After` and the key's bucket. Apart from the body so the guard can set them before it throws,
 * for filters that know nothing of them.
 */
export function setApiErrorHeaders(response: Response, error: ApiError, realm: string): void {
  if (error.getStatus() === 401) response.setHeader('WWW-Authenticate', `Bearer realm="${realm}"`);
  if (error instanceof RateLimitedError) {
    response.setHeader('Retry-After', String(error.retryAfterSeconds));
    if (error.bucket !== null) setRateLimitHeaders(response, error.bucket);
  }
}

/**
 * Answers with the error in the envelope, with the headers it calls for and the request's id (a
 * request the guard never saw, such as an unknown route, gets one here).
 */
export function sendApiError(response: Response, error: ApiError, realm: string): void {
  requestIdOf(response);
  setApiErrorHeaders(response, error, realm);
  response.status(error.getStatus()).json(error.toEnvelope());
}
