import type { Request } from 'express';
import { UnsupportedMediaTypeError } from '../errors/api-error.js';
import { carriesBody } from './carries-body.js';
import { readsTheRequest, takesFiles } from './declared-arguments.js';
import { unreadBodyTurnsOutEmpty } from './unread-body.js';

/** The methods whose body the routes read as parameters. */
const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

/** Whether the Content-Type is JSON's own, parameters (`; charset=utf-8`) and case aside. */
function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}

function notJson(): UnsupportedMediaTypeError {
  return new UnsupportedMediaTypeError(
    'The request body must be JSON, sent with Content-Type: application/json.',
  );
}

/**
 * Refuses, with 415 and before the handler runs, a body sent as anything but JSON: Express's form
 * parser would otherwise hand a DTO the fields of an `application/x-www-form-urlencoded` body, and
 * a request the API does not document would work. Checked after the key guard, so that a request
 * without a valid key learns nothing of its body's fate. A bodiless request (no length, or a chunked
 * body that turns out empty) and handlers that read the request or an upload themselves (`declared`)
 * are left alone. Answers a promise only when an unread body must be looked at first.
 */
export function checkJsonBody(request: Request, declared: ReadonlySet<number>): Promise<void> | undefined {
  if (!BODY_METHODS.includes(request.method) || !carriesBody(request)) return undefined;
  if (isJson(request.headers['content-type']) || readsTheRequest(declared) || takesFiles(declared)) {
    return undefined;
  }
  // A body a parser took was there; one no parser took may be a chunked nothing.
  if (request.body !== undefined) throw notJson();
  return unreadBodyTurnsOutEmpty(request).then((empty) => {
    if (!empty) throw notJson();
  });
}
