import type { Response } from 'express';
import { generateId } from './generate-id.js';

/** Stripe's header: each /v1 answer names its request, so that a client's report finds it in the logs. */
const REQUEST_ID_HEADER = 'Request-Id';

/**
 * The id of the request `response` answers, given to it now if it has none yet (for the log alone,
 * once something else has sent the headers).
 */
export function requestIdOf(response: Response): string {
  const given = response.getHeader(REQUEST_ID_HEADER);
  if (typeof given === 'string') return given;
  const id = generateId('req');
  if (!response.headersSent) response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
