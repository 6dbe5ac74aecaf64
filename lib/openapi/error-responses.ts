import { ApiExtraModels, ApiResponse, getSchemaPath, type HeadersObject } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import type { ApiErrorCode, ApiErrorType } from '../errors/api-error.js';
import { ErrorEnvelopeSchema } from './error-envelope.schema.js';
import { REQUEST_ID_HEADER } from './response-headers.js';

/** The statuses a /v1 route answers in the error envelope. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 415 | 429 | 500;

interface ErrorStatusShape {
  type: ApiErrorType;
  codes: ApiErrorCode[];
  description: string;
  headers?: HeadersObject;
}

/** Each status's error type, its usual codes and what it means (docs/api-contract.md, Errors). */
const ERROR_STATUSES: Readonly<Record<ErrorStatus, ErrorStatusShape>> = {
  400: {
    type: 'invalid_request_error',
    codes: ['parameter_invalid'],
    description:
      'A parameter is wrong (`param` names it), unknown body fields and query parameters included; a ' +
      'body that is not a JSON object (`param: "body"`).',
  },
  401: {
    type: 'authentication_error',
    codes: ['invalid_api_key'],
    description: 'No, malformed, unknown or revoked API key.',
    headers: {
      'WWW-Authenticate': {
        description: 'The scheme and realm: `Bearer realm="<serviceName>"`.',
        schema: { type: 'string' },
      },
    },
  },
  403: {
    type: 'permission_error',
    codes: ['insufficient_scope'],
    description: 'The API key lacks a scope the route requires.',
  },
  404: {
    type: 'invalid_request_error',
    codes: ['resource_missing'],
    description: 'No such object for this account and mode.',
  },
  409: {
    type: 'invalid_request_error',
    codes: ['conflict'],
    description: 'A request with the same `Idempotency-Key` is still running; retry once it has finished.',
  },
  415: {
    type: 'invalid_request_error',
    codes: ['unsupported_media_type'],
    description: 'A body sent with another `Content-Type` than `application/json`.',
  },
  429: {
    type: 'rate_limit_error',
    codes: ['rate_limited'],
    description: 'Over the API key’s request rate, or the client address over its failed authentications.',
    headers: {
      'Retry-After': {
        description: 'Whole seconds after which the request may be made again.',
        schema: { type: 'integer', minimum: 0 },
      },
    },
  },
  500: {
    type: 'api_error',
    codes: ['api_error'],
    description: 'An unexpected failure, logged with its `Request-Id`.',
  },
};

/**
 * The error envelope of one status, its `type` and `code` narrowed to those the route answers with
 * it. `codes` and `description` replace the status's usual ones when a route answers it otherwise.
 */
export function ApiErrorResponse(
  status: ErrorStatus,
  options: { codes?: ApiErrorCode[]; description?: string } = {},
): MethodDecorator & ClassDecorator {
  const shape = ERROR_STATUSES[status];
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeSchema),
    ApiResponse({
      status,
      description: options.description ?? shape.description,
      headers: { ...REQUEST_ID_HEADER, ...shape.headers },
      schema: {
        allOf: [
          { $ref: getSchemaPath(ErrorEnvelopeSchema) },
          {
            type: 'object',
            properties: {
              error: {
                type: 'object',
                properties: {
                  type: { type: 'string', enum: [shape.type] },
                  code: { type: 'string', enum: options.codes ?? shape.codes },
                },
              },
            },
          },
        ],
      },
    }),
  );
}
