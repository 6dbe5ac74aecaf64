import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Inject,
  Logger,
  Optional,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiError, ConflictError, InvalidApiKeyError, ResourceMissingError } from './api-error.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import { DEFAULT_OPTIONS } from '../interview-api.defaults.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { sendApiError } from './send-api-error.js';
import { unexpectedFailure } from './unexpected-failure.js';

/**
 * The client-facing message of a Nest HttpException: Nest's own convention is that a 4xx message
 * is written for the client (its default filter shows it too).
 */
function clientMessage(exception: HttpException): string {
  const response = exception.getResponse();
  const message =
    typeof response === 'string' ? response : (response as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message.length > 0) return message;
  if (Array.isArray(message) && message.every((part) => typeof part === 'string') && message.length > 0) {
    return message.join('; ');
  }
  return 'The request is invalid.';
}

/**
 * A 429 not the module's (a host's ThrottlerGuard refusing a module route, say): in plain words, where
 * the exception's message names its class, with the `Retry-After` it set on the response kept as set.
 */
function rateLimitedElsewhere(response: Response): ApiError {
  const retryAfter = String(response.getHeader('Retry-After') ?? '');
  const message = /^\d+$/.test(retryAfter)
    ? `Too many requests. Retry after ${retryAfter} s.`
    : 'Too many requests. Retry later.';
  return new ApiError(429, 'rate_limit_error', 'rate_limited', message);
}

/**
 * A Nest HttpException thrown by a controller in the module's style (a host's own @ApiV1Controller
 * throwing ConflictException, say): same status family, the module's codes.
 */
function fromHttpException(exception: HttpException, response: Response): ApiError | null {
  const status = exception.getStatus();
  if (status < 400 || status >= 500) return null;
  if (status === 429) return rateLimitedElsewhere(response);
  const message = clientMessage(exception);
  switch (status) {
    case 401:
      return new InvalidApiKeyError(message);
    case 403:
      return new ApiError(403, 'permission_error', 'insufficient_scope', message);
    case 404:
      return new ResourceMissingError(message);
    case 409:
      return new ConflictError(message);
    default:
      // 400, 405, 413, 422, ...: the request itself is wrong. No param: the exception names none.
      return new ApiError(400, 'invalid_request_error', 'parameter_invalid', message);
  }
}

/**
 * Renders every failure of a module route in the error envelope. It is bound to the module's own
 * controllers (and to host controllers that opt in with @ApiV1Controller), never globally, so the
 * host's other routes keep their own error handling.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('InterviewApi');

  // Optional: a filter the host makes itself (`new ApiExceptionFilter()`) has no options, and
  // names the default service in its 401 challenge.
  constructor(@Optional() @Inject(INTERVIEW_API_OPTIONS) private readonly options?: ResolvedOptions) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const error = this.toApiError(exception, response);
    if (response.headersSent) return;
    sendApiError(response, error, this.options?.serviceName ?? DEFAULT_OPTIONS.serviceName);
  }

  private toApiError(exception: unknown, response: Response): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) {
      const known = fromHttpException(exception, response);
      if (known) return known;
    }
    return unexpectedFailure(this.logger, exception, response);
  }
}
