import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { ApiError, InsufficientScopeError } from '../errors/api-error.js';
import { setRateLimitHeaders } from '../errors/rate-limit-headers.js';
import { setApiErrorHeaders } from '../errors/send-api-error.js';
import { INTERVIEW_API_OPTIONS, REQUIRED_SCOPES } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { requestIdOf } from '../identifiers/request-id.js';
import type { ApiKeyRequest } from './api-key.request.js';
import { ApiKeysService } from './api-keys.service.js';
import { authenticateRequest } from './authenticate-request.js';
import { RateLimiter } from './rate-limiter.js';
import type { Scope } from './scopes.js';

/**
 * Requires a valid API key (Bearer, or the user name of Basic credentials), then the key's request
 * rate, then the route's @RequireScopes. It runs first on every /v1 route, so every answer, a refusal
 * included, carries `Request-Id`, and every answer to a metered request the key's `X-RateLimit-*`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
    private readonly rateLimiter: RateLimiter,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<ApiKeyRequest>();
    const response = http.getResponse<Response>();
    requestIdOf(response);
    const credentials = { authorization: request.headers.authorization, ip: request.ip };
    const { key, bucket } = await authenticateRequest(credentials, this.keys, this.rateLimiter).catch(
      (error: unknown) => {
        // Applied alone, with whatever filter the host has: its 401 still names the scheme, its
        // 429 still says when to retry.
        if (error instanceof ApiError) setApiErrorHeaders(response, error, this.options.serviceName);
        throw error;
      },
    );
    if (bucket !== null) setRateLimitHeaders(response, bucket);
    const required =
      this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, [
        context.getHandler(),
        context.getClass(),
      ]) ?? [];
    if (!required.every((scope) => key.scopes.includes(scope))) throw new InsufficientScopeError(required);
    request.apiKey = key;
    return true;
  }
}
