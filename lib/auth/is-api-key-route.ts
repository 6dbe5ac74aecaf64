import type { ExecutionContext } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ApiKeyGuard } from './api-key.guard.js';

/**
 * `@UseGuards` holds classes and instances; ApiKeyGuard, made by Nest with the module's services, is
 * bound as its class (or as a host's subclass of it).
 */
function isApiKeyGuard(guard: unknown): boolean {
  return typeof guard === 'function' && (guard === ApiKeyGuard || guard.prototype instanceof ApiKeyGuard);
}

/**
 * Whether ApiKeyGuard protects the routed handler (the module's routes, `@ApiV1Controller` ones, any
 * `@UseGuards(ApiKeyGuard)`), for a host-global guard to let those through. Decided by the handler,
 * not the path: under URI versioning the host's own routes are under /v1 too.
 */
export function isApiKeyRoute(context: ExecutionContext): boolean {
  // Read as Nest reads it when it binds guards: a handler's own, and its class's with those inherited.
  const bound = [context.getClass(), context.getHandler()].flatMap(
    (target) => (Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? [],
  );
  return bound.some(isApiKeyGuard);
}
