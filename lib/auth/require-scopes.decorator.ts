import { REQUIRED_SCOPES } from '../interview-api.constants.js';
import { redocumentV1Routes } from '../openapi/v1-route-documentation.js';
import type { Scope } from './scopes.js';

/**
 * The scopes a route needs; ApiKeyGuard answers 403 insufficient_scope when one is missing.
 * Several on one class or one method add up: every scope they name is required. One on a method
 * replaces the class's, as Nest's own metadata overrides do (an empty one lifts them: any valid key).
 */
export const RequireScopes =
  (...scopes: Scope[]): MethodDecorator & ClassDecorator =>
  (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    // Where SetMetadata puts it: on the method itself, or on the class. Own metadata only, so that
    // a subclass's decorator does not add up with its parent's but replaces it.
    const holder: object = descriptor ? (descriptor.value as object) : target;
    const held = (Reflect.getOwnMetadata(REQUIRED_SCOPES, holder) as Scope[] | undefined) ?? [];
    Reflect.defineMetadata(REQUIRED_SCOPES, [...new Set([...held, ...scopes])], holder);
    // Above @ApiV1Controller, a class's scopes come after its routes were documented.
    if (!descriptor) redocumentV1Routes(target);
  };
