import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ParameterInvalidError, UnknownParameterError } from '../errors/api-error.js';
import { carriesBody } from './carries-body.js';
import { declaredArguments, readsTheRequest, takesFiles } from './declared-arguments.js';
import { unreadBodyTurnsOutEmpty } from './unread-body.js';

/** The first name in a body that has any, or null for an absent or empty one. */
function firstBodyName(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (Array.isArray(body)) return body.length > 0 ? 'body' : null;
  if (typeof body !== 'object') return 'body';
  return Object.keys(body)[0] ?? null;
}

/**
 * Refuses unknown parameters (docs/decisions.md, Errors) on routes that declare no body or no query,
 * where no DTO would: `{"disabled": true}` sent to the wrong route must not seem to work. A body no
 * parser could read is refused for the same reason.
 */
@Injectable()
export class UnknownParametersInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const declared = declaredArguments(context);
    if (!readsTheRequest(declared)) {
      const request = context.switchToHttp().getRequest<Request>();
      // No body parser took it (text/plain, say, as fetch sends a string): every parameter in it
      // would be ignored, and a PATCH would answer 200 having changed nothing.
      if (
        request.body === undefined &&
        carriesBody(request) &&
        !takesFiles(declared) &&
        !(await unreadBodyTurnsOutEmpty(request))
      ) {
        throw new ParameterInvalidError(
          'body',
          'The request body could not be read: send JSON with Content-Type: application/json.',
        );
      }
      const query = Object.keys(request.query ?? {})[0];
      if (!declared.has(RouteParamtypes.QUERY) && query !== undefined) {
        throw new UnknownParameterError(query);
      }
      const body = firstBodyName(request.body);
      if (!declared.has(RouteParamtypes.BODY) && body !== null) {
        throw new UnknownParameterError(body);
      }
    }
    return next.handle();
  }
}
