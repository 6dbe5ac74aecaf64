import { HttpException } from '@nestjs/common';
import type { RateLimitState } from './rate-limit-headers.js';

export type ApiErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'api_error';

export type ApiErrorCode =
  | 'parameter_invalid'
  | 'parameter_missing'
  | 'invalid_api_key'
  | 'insufficient_scope'
  | 'resource_missing'
  | 'conflict'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'api_error';

/** The body every failure answers with, on every module route. */
export interface ErrorEnvelope {
  error: { type: ApiErrorType; code: ApiErrorCode; message: string; param?: string };
}

/**
 * The module's one error hierarchy: services throw these, the filter renders them. Each is an
 * HttpException whose response is the envelope, so Nest's default filter and a host's answer it with
 * its status and body too.
 */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly type: ApiErrorType,
    readonly code: ApiErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message, status);
  }

  override getResponse(): ErrorEnvelope {
    return this.toEnvelope();
  }

  toEnvelope(): ErrorEnvelope {
    const error: ErrorEnvelope['error'] = { type: this.type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    return { error };
  }
}

export class ParameterInvalidError extends ApiError {
  constructor(param: string, message: string) {
    super(400, 'invalid_request_error', 'parameter_invalid', message, param);
  }
}

/** A parameter the route does not take: refused, never ignored (docs/decisions.md, Errors). */
export class UnknownParameterError extends ParameterInvalidError {
  constructor(param: string) {
    super(param, `Received unknown parameter: ${param}.`);
  }
}

export class ParameterMissingError extends ApiError {
  constructor(param: string, message = `Missing required parameter: ${param}.`) {
    super(400, 'invalid_request_error', 'parameter_missing', message, param);
  }
}

export class InvalidApiKeyError extends ApiError {
  constructor(message = 'Invalid API key provided.') {
    super(401, 'authentication_error', 'invalid_api_key', message);
  }
}

export class InsufficientScopeError extends ApiError {
  constructor(required: readonly string[]) {
    super(
      403,
      'permission_error',
      'insufficient_scope',
      `This API key lacks the scope required by this route: ${required.join(', ')}.`,
    );
  }
}

export class ResourceMissingError extends ApiError {
  constructor(message: string, param?: string) {
    super(404, 'invalid_request_error', 'resource_missing', message, param);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string) {
    super(409, 'invalid_request_error', 'conflict', message);
  }
}

/** A body the routes do not read: they take JSON only. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor(message: string) {
    super(415, 'invalid_request_error', 'unsupported_media_type', message);
  }
}

/**
 * Over a request rate; the filter sends `Retry-After` with it, and the key's bucket as
 * `X-RateLimit-*` when the refusal is the key's.
 */
export class RateLimitedError extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
    readonly bucket: RateLimitState | null = null,
  ) {
    super(429, 'rate_limit_error', 'rate_limited', message);
  }
}

export class InternalApiError extends ApiError {
  constructor() {
    super(500, 'api_error', 'api_error', 'An unexpected error occurred. Please try again.');
  }
}
