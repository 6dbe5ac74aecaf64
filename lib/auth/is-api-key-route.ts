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
 * Whether ApiKeyGuard protects the handler a request is routed to: the module's own routes, a
 * host's `@ApiV1Controller` routes, and any with `@UseGuards(ApiKeyGuard)` on the class or the
 * handler. For a host-global guard meant for the host's own routes only, to let the module's
 * through (the key guard checks those). By what the handler is, not by its path: under a host's
 * URI versioning (`defaultVersion: '1'`) the host's own routes are under /v1 too.
 */
export function isApiKeyRoute(context: ExecutionContext): boolean {
  // Read as Nest reads it when it binds guards: a handler's own, and its class's with those inherited.
  const bound = [context.getClass(), context.getHandler()].flatMap(
    (target) => (Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? [],
  );
  return bound.some(isApiKeyGuard);
}
