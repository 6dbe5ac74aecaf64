import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ApiErrorCode, ApiErrorType, ErrorEnvelope } from '../errors/api-error.js';

export const API_ERROR_TYPES: readonly ApiErrorType[] = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'api_error',
];

export const API_ERROR_CODES: readonly ApiErrorCode[] = [
  'parameter_invalid',
  'parameter_missing',
  'invalid_api_key',
  'insufficient_scope',
  'resource_missing',
  'conflict',
  'unsupported_media_type',
  'rate_limited',
  'api_error',
];

@ApiSchema({ name: 'ApiError', description: 'What went wrong: its type, its code and a message for people.' })
export class ApiErrorSchema {
  @ApiProperty({ type: 'string', enum: API_ERROR_TYPES })
  type!: ApiErrorType;

  @ApiProperty({ type: 'string', enum: API_ERROR_CODES })
  code!: ApiErrorCode;

  @ApiProperty({ type: 'string', example: 'Missing required parameter: url.' })
  message!: string;

  @ApiPropertyOptional({ type: 'string', description: 'The parameter at fault, when there is one.' })
  param?: string;
}

@ApiSchema({ name: 'ErrorEnvelope', description: 'The body of every failure on every /v1 route.' })
export class ErrorEnvelopeSchema implements ErrorEnvelope {
  @ApiProperty({ type: () => ApiErrorSchema })
  error!: ApiErrorSchema;
}
