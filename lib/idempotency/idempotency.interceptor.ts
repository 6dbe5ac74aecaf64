import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import { type Observable, of } from 'rxjs';
import type { ApiKeyRequest } from '../auth/api-key.request.js';
import { ParameterInvalidError } from '../errors/api-error.js';
import { declaredArguments, readsTheRequest } from '../request/declared-arguments.js';
import { hasControlCharacter } from '../http/control-characters.js';
import { IdempotencyStore, type IdempotentRequest } from './idempotency-store.js';
import { requestFingerprint, unreadBodyType } from './request-fingerprint.js';
import { beforeSending, type SentAnswer, sendInstead } from './sent-answer.js';

export const MAX_KEY_LENGTH = 255;

/**
 * The request's `Idempotency-Key`, null without one; a key no retry could repeat is refused, and so
 * is a repeated header, which Node would join into one key ("a1, a2") that neither value names.
 */
function idempotencyKeyOf(request: Pick<IncomingMessage, 'headersDistinct'>): string | null {
  const values = request.headersDistinct['idempotency-key'];
  if (values === undefined) return null;
  if (values.length > 1) {
    throw new ParameterInvalidError('Idempotency-Key', 'Idempotency-Key must be given once.');
  }
  const key = values[0];
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || hasControlCharacter(key)) {
    throw new ParameterInvalidError(
      'Idempotency-Key',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters, without control characters.`,
    );
  }
  return key;
}

/** The kept answer as a handler's value: its JSON parsed, or its text. */
function replayedValue(answer: SentAnswer): unknown {
  const text = answer.body.toString('utf8');
  if (answer.contentType?.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * `Idempotency-Key` on POST, as Stripe has it: a successful answer is kept a day, byte for byte, and
 * a retry with the same key and parameters gets it again (`Idempotent-Replayed: true`). A failed or
 * streamed answer is not kept. Handlers taking `@Req()`, `@Res()` or `@RawBody()` are left alone.
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
    const key = idempotencyKeyOf(request);
    if (key === null) return next.handle();
    const unread = unreadBodyType(request);
    if (unread !== null) {
      throw new ParameterInvalidError(
        'Idempotency-Key',
        `This request's body (${unread}) is read by the route itself, after the Idempotency-Key is checked, so a retry with a different body could not be told from this one. Send it without Idempotency-Key.`,
      );
    }
    const response = http.getResponse<Response>();
    const idempotent: IdempotentRequest = {
      scope: request.apiKey,
      key,
      fingerprint: requestFingerprint(request.apiKey.id, request),
    };
    const start = await this.store.start(idempotent);
    if (!start.run) {
      // What the layers around the handler make of this is replaced by the bytes kept; they are
      // given the answer as the handler's value, as on the first run, since some read it.
      sendInstead(response, start.answer);
      return of(replayedValue(start.answer));
    }
    beforeSending(response, (answer) => this.settle(idempotent, start.token, answer));
    return next.handle();
  }

  /**
   * Keeps a successful answer for the retries and lets the key go otherwise. Failing to keep it
   * does not fail a request that has done its work: its retries meet a run in progress until the
   * run's lease is over.
   */
  private async settle(request: IdempotentRequest, token: string, answer: SentAnswer | null): Promise<void> {
    try {
      if (answer !== null && answer.status >= 200 && answer.status < 300) {
        await this.store.finish(request, token, answer);
      } else {
        await this.store.release(request, token);
      }
    } catch (error) {
      this.logger.warn(`Could not settle Idempotency-Key ${request.key} after its run: ${String(error)}`);
    }
  }
}
