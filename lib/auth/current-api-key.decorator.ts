import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ApiKeyRequest } from './api-key.request.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';

/** Hands a guarded controller the calling key, to scope its queries to account and mode. */
export const CurrentApiKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedApiKey =>
    context.switchToHttp().getRequest<ApiKeyRequest>().apiKey,
);
