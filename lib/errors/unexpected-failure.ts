import type { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { requestIdOf } from '../identifiers/request-id.js';
import { InternalApiError } from './api-error.js';
import { RepeatWindow } from './repeat-window.js';

/**
 * Which failures' stacks to log, by their message and the place they were thrown: a database that
 * is away fails every request alike, and a stack of a dozen lines for each would bury everything else.
 */
const stacks = new RepeatWindow();

/**
 * Logs an unexpected failure under the client's Request-Id with method and path (not the query,
 * which may carry what does not belong in a log), its stack at most once a minute per failure, and
 * answers a 500 that tells the client nothing internal.
 */
export function unexpectedFailure(logger: Logger, failure: unknown, response: Response): InternalApiError {
  const summary = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
  const stack = failure instanceof Error ? failure.stack : undefined;
  // The same message thrown from another place is another failure, with a stack of its own.
  const thrownAt = stack?.split('\n').find((line) => line.trimStart().startsWith('at ')) ?? '';
  const failureKey = `${summary}\n${thrownAt}`;
  const withStack = stack !== undefined && stacks.take(failureKey, Date.now()) !== null;
  const detail = withStack
    ? stack
    : `${summary}${stack ? ' (its stack was logged within the last minute)' : ''}`;
  const { method, originalUrl } = response.req;
  const [path] = originalUrl.split('?');
  logger.error(`Request ${requestIdOf(response)} (${method} ${path}) failed: ${detail}`);
  return new InternalApiError();
}
