import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import type { Response } from 'express';
import { catchError, mergeMap, type Observable, of } from 'rxjs';
import type { ApiKeyRequest } from '../auth/api-key.request.js';
import { ParameterInvalidError } from '../errors/api-error.js';
import { declaredArguments, readsTheRequest } from '../request/declared-arguments.js';
import { hasControlCharacter } from '../http/control-characters.js';
import { IdempotencyStore, type IdempotentRequest } from './idempotency-store.js';
import { requestFingerprint } from './request-fingerprint.js';

const MAX_KEY_LENGTH = 255;

/** The request's `Idempotency-Key`, null without one; a key no retry could repeat is refused. */
function idempotencyKeyOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || hasControlCharacter(key)) {
    throw new ParameterInvalidError(
      'Idempotency-Key',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters, without control characters.`,
    );
  }
  return key;
}

/**
 * `Idempotency-Key` on POST, as Stripe has it: the first request with a key runs and its answer is
 * kept for a day; a retry with the same key and parameters gets that answer again (with
 * `Idempotent-Replayed: true`) instead of creating or sending anything twice. A run that fails
 * keeps nothing, so its retry runs afresh. Handlers taking `@Req()`, `@Res()` or `@RawBody()` are
 * left alone.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('InterviewApi');

  constructor(private readonly store: IdempotencyStore) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<ApiKeyRequest>();
    // A handler that writes its response itself could not be answered from the stored one.
    if (request.method !== 'POST' || readsTheRequest(declaredArguments(context))) return next.handle();
    const key = idempotencyKeyOf(request.headers['idempotency-key']);
    if (key === null) return next.handle();
    const response = http.getResponse<Response>();
    const idempotent: IdempotentRequest = {
      scope: request.apiKey,
      key,
      fingerprint: requestFingerprint(request),
    };
    const start = await this.store.start(idempotent);
    if (!start.run) {
      // The status needs no restoring: only answers that did not fail are kept, and a route
      // without @Res() answers every success with its one status.
      response.setHeader('Idempotent-Replayed', 'true');
      return of(start.body === null ? undefined : (JSON.parse(start.body) as unknown));
    }
    return next.handle().pipe(
      mergeMap((value: unknown) => this.finish(idempotent, start.token, response.statusCode, value)),
      catchError(async (error: unknown) => {
        await this.store.release(idempotent, start.token).catch(() => undefined);
        throw error;
      }),
    );
  }

  /**
   * Keeps the answer for the retries. Failing to keep it does not fail a request that has done
   * its work: its retries meet a run in progress until the run's lease is over.
   */
  private async finish(
    request: IdempotentRequest,
    token: string,
    status: number,
    value: unknown,
  ): Promise<unknown> {
    try {
      await this.store.finish(request, token, status, value === undefined ? null : JSON.stringify(value));
    } catch (error) {
      this.logger.warn(`Could not keep the answer to Idempotency-Key ${request.key}: ${String(error)}`);
    }
    return value;
  }
}
