import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { UnknownParameterError } from '../errors/api-error.js';
import { declaredArguments, readsTheRequest } from './declared-arguments.js';

/** The first name in a body that has any, or null for an absent or empty one. */
function firstBodyName(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (Array.isArray(body)) return body.length > 0 ? 'body' : null;
  if (typeof body !== 'object') return 'body';
  return Object.keys(body)[0] ?? null;
}

/**
 * Unknown parameters are refused, not ignored (DECISIONS.md, Errors), on routes that take no body
 * or no query too: a DTO and the list parameters refuse the names they do not know, but a route
 * without either (rotate_secret, test, replay, DELETE, a retrieve) would otherwise accept anything,
 * and a client's `?expand=secret` or `{"disabled": true}` on the wrong route would seem to work.
 */
@Injectable()
export class UnknownParametersInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declared = declaredArguments(context);
    if (!readsTheRequest(declared)) {
      const request = context.switchToHttp().getRequest<Request>();
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
