import type { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { requestIdOf } from '../request/request-id.js';
import { InternalApiError } from './api-error.js';

/**
 * A failure nobody expected: logged for the operator under the id the client is answered with,
 * and answered as a 500 that tells the client nothing internal.
 */
export function unexpectedFailure(logger: Logger, failure: unknown, response: Response): InternalApiError {
  const detail = failure instanceof Error ? (failure.stack ?? failure.message) : String(failure);
  logger.error(`Request ${requestIdOf(response)} failed: ${detail}`);
  return new InternalApiError();
}
