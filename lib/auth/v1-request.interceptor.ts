import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { checkBodyDepth } from '../request/body-depth.js';
import { declaredArguments, readsTheRequest } from '../request/declared-arguments.js';
import { checkJsonBody } from '../request/json-body.js';
import { checkUnknownParameters } from '../request/unknown-parameters.js';

type Handled = Observable<unknown> | Promise<Observable<unknown>>;

/**
 * The request rules of every @ApiV1Controller route, in this order: a body sent as anything but JSON
 * is refused (415), then a body nested too deep, then unknown parameters, then a POST's
 * `Idempotency-Key` is honoured. One interceptor, not one per rule: Nest wraps each interceptor of a
 * route in layers of its own on every request. A handler taking `@Req()`, `@Res()` or `@RawBody()`
 * keeps what the request carries; a request without a body waits on nothing.
 */
@Injectable()
export class V1RequestInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyInterceptor) {}

  intercept(context: ExecutionContext, next: CallHandler): Handled {
    const request = context.switchToHttp().getRequest<Request>();
    const declared = declaredArguments(context);
    const json = checkJsonBody(request, declared);
    if (json !== undefined) return json.then(() => this.checkParameters(context, next, request, declared));
    return this.checkParameters(context, next, request, declared);
  }

  private checkParameters(
    context: ExecutionContext,
    next: CallHandler,
    request: Request,
    declared: ReadonlySet<number>,
  ): Handled {
    if (!readsTheRequest(declared)) {
      checkBodyDepth(request.body);
      const unknown = checkUnknownParameters(request, declared);
      if (unknown !== undefined) return unknown.then(() => this.handle(context, next, request));
    }
    return this.handle(context, next, request);
  }

  /** Only a POST can be idempotent: any other request goes to the handler directly. */
  private handle(context: ExecutionContext, next: CallHandler, request: Request): Handled {
    return request.method === 'POST' ? this.idempotency.intercept(context, next) : next.handle();
  }
}
