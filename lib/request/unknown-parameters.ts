import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Request } from 'express';
import { ParameterInvalidError, UnknownParameterError } from '../errors/api-error.js';
import { carriesBody } from './carries-body.js';
import { takesFiles } from './declared-arguments.js';
import { unreadBodyTurnsOutEmpty } from './unread-body.js';

/** The first name in a body that has any, or null for an absent or empty one. */
function firstBodyName(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (Array.isArray(body)) return body.length > 0 ? 'body' : null;
  if (typeof body !== 'object') return 'body';
  return Object.keys(body)[0] ?? null;
}

/** A query or body parameter given to a route that declares no query or no body. */
function checkUndeclared(request: Request, declared: ReadonlySet<number>): void {
  const query = Object.keys(request.query ?? {})[0];
  if (!declared.has(RouteParamtypes.QUERY) && query !== undefined) throw new UnknownParameterError(query);
  const body = firstBodyName(request.body);
  if (!declared.has(RouteParamtypes.BODY) && body !== null) throw new UnknownParameterError(body);
}

function unreadable(): ParameterInvalidError {
  return new ParameterInvalidError(
    'body',
    'The request body could not be read: send JSON with Content-Type: application/json.',
  );
}

/**
 * Refuses unknown parameters (docs/decisions.md, Errors) on routes that declare no body or no query
 * (`declared`), where no DTO would: `{"disabled": true}` sent to the wrong route must not seem to
 * work. A body no parser could read is refused for the same reason. For handlers that do not read
 * the request themselves; answers a promise only when an unread body must be looked at first.
 */
export function checkUnknownParameters(
  request: Request,
  declared: ReadonlySet<number>,
): Promise<void> | undefined {
  // No body parser took it (text/plain, say, as fetch sends a string): every parameter in it would
  // be ignored, and a PATCH would answer 200 having changed nothing.
  if (request.body === undefined && carriesBody(request) && !takesFiles(declared)) {
    return unreadBodyTurnsOutEmpty(request).then((empty) => {
      if (!empty) throw unreadable();
      checkUndeclared(request, declared);
    });
  }
  checkUndeclared(request, declared);
  return undefined;
}
