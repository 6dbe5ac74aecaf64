import type { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { requestIdOf } from '../request/request-id.js';
import { InternalApiError } from './api-error.js';

/** How often one failure's stack is logged again while it keeps recurring. */
const STACK_INTERVAL_MS = 60_000;
/** Failures remembered at most: past them, every stack is news again. */
const MAX_REMEMBERED = 100;
/**
 * When each failure's stack was last logged, by its message and the place it was thrown: a database that is away fails
 * every request alike, and a stack of a dozen lines for each would bury everything else.
 */
const stackLoggedAt = new Map<string, number>();

/**
 * A failure nobody expected: logged for the operator under the id the client is answered with,
 * with the request's method and path (not its query, which may carry what is not the log's), and
 * answered as a 500 that tells the client nothing internal. Its stack is logged with the first
 * request it fails, then once a minute while it recurs; the others name it in a line.
 */
export function unexpectedFailure(logger: Logger, failure: unknown, response: Response): InternalApiError {
  const summary = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
  const stack = failure instanceof Error ? failure.stack : undefined;
  // The same message thrown from another place is another failure, with a stack of its own.
  const thrownAt = stack?.split('\n').find((line) => line.trimStart().startsWith('at ')) ?? '';
  const failureKey = `${summary}\n${thrownAt}`;
  const now = Date.now();
  const loggedAt = stackLoggedAt.get(failureKey);
  const withStack = stack !== undefined && (loggedAt === undefined || now - loggedAt >= STACK_INTERVAL_MS);
  if (withStack) {
    if (stackLoggedAt.size >= MAX_REMEMBERED && loggedAt === undefined) stackLoggedAt.clear();
    stackLoggedAt.set(failureKey, now);
  }
  const detail = withStack
    ? stack
    : `${summary}${stack ? ' (its stack was logged within the last minute)' : ''}`;
  const { method, originalUrl } = response.req;
  const [path] = originalUrl.split('?');
  logger.error(`Request ${requestIdOf(response)} (${method} ${path}) failed: ${detail}`);
  return new InternalApiError();
}
