import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { UnknownParameterError } from './api-error.js';

/** Handlers declaring one of these read the request themselves: whatever it carries may be theirs. */
const READS_THE_REQUEST = [RouteParamtypes.REQUEST, RouteParamtypes.RESPONSE, RouteParamtypes.RAW_BODY];

/** The kinds of argument each handler declares, read once: a handler's declaration never changes. */
const declarations = new WeakMap<object, ReadonlySet<number>>();

/** The kinds of argument a handler declares (`@Body()`, `@Query()`...), from Nest's route metadata. */
function declaredArguments(context: ExecutionContext): ReadonlySet<number> {
  const handler = context.getHandler();
  let declared = declarations.get(handler);
  if (declared === undefined) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<
      string,
      unknown
    >;
    declared = new Set(Object.keys(args).map((key) => Number(key.split(':')[0])));
    declarations.set(handler, declared);
  }
  return declared;
}

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
    if (!READS_THE_REQUEST.some((type) => declared.has(type))) {
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
