import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { UnsupportedMediaTypeError } from '../errors/api-error.js';
import { carriesBody } from './carries-body.js';
import { declaredArguments, readsTheRequest, takesFiles } from './declared-arguments.js';
import { unreadBodyTurnsOutEmpty } from './unread-body.js';

/** The methods whose body the routes read as parameters. */
const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** Whether the Content-Type is JSON's own, parameters (`; charset=utf-8`) and case aside. */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}

/**
 * Refuses, with 415 and before the handler runs, a body sent as anything but JSON: Express's form
 * parser would otherwise hand a DTO the fields of an `application/x-www-form-urlencoded` body, and
 * a request the API does not document would work. Runs after the key guard, so that a request
 * without a valid key learns nothing of its body's fate. A bodiless request (no length, or a chunked
 * body that turns out empty) and handlers that read the request or an upload themselves are left alone.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<Request>();
    if (
      BODY_METHODS.includes(request.method) &&
      carriesBody(request) &&
      !isJson(request.headers['content-type'])
    ) {
      const declared = declaredArguments(context);
      const bodyIsTheHandlers = readsTheRequest(declared) || takesFiles(declared);
      // A body a parser took was there; one no parser took may be a chunked nothing.
      if (!bodyIsTheHandlers && (request.body !== undefined || !(await unreadBodyTurnsOutEmpty(request)))) {
        throw new UnsupportedMediaTypeError(
          'The request body must be JSON, sent with Content-Type: application/json.',
        );
      }
    }
    return next.handle();
  }
}
