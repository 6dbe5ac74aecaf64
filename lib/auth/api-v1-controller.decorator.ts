import {
  applyDecorators,
  Controller,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import { ApiExceptionFilter } from '../errors/api-exception.filter.js';
import { createValidationPipe } from '../request/validation.pipe.js';
import { DocumentV1Routes } from '../openapi/v1-route-documentation.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { V1RequestInterceptor } from './v1-request.interceptor.js';

/**
 * A controller under /v1 with the module's bearer guard, validation (JSON bodies only, unknown
 * parameters refused on every route), `Idempotency-Key` on POST and error envelope, and nothing global:
 * `@ApiV1Controller('invitations')` is all a host controller needs. Its routes' OpenAPI operations get
 * the security, the @RequireScopes scopes and the error answers these bring.
 */
export function ApiV1Controller(path: string): ClassDecorator {
  // Nest's usual '/invitations' must not become /v1//invitations.
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return applyDecorators(
    // The version is the path's own /v1: version-neutral, so that a host's URI versioning
    // (app.enableVersioning) does not mount the routes again under /v1/v1.
    Controller({ path: trimmed ? `v1/${trimmed}` : 'v1', version: VERSION_NEUTRAL }),
    UseFilters(ApiExceptionFilter),
    UseGuards(ApiKeyGuard),
    UseInterceptors(V1RequestInterceptor),
    UsePipes(createValidationPipe()),
    DocumentV1Routes(trimmed),
  );
}
