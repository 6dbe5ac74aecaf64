import type { Response } from 'express';
import { type ApiError, RateLimitedError } from './api-error.js';

/** Answers with the error in the envelope, and with `Retry-After` when a rate limit refused it. */
export function sendApiError(response: Response, error: ApiError): void {
  if (error instanceof RateLimitedError) response.setHeader('Retry-After', String(error.retryAfterSeconds));
  response.status(error.status).json(error.toEnvelope());
}
