import { SetMetadata } from '@nestjs/common';
import { REQUIRED_SCOPES } from '../interview-api.constants.js';
import type { Scope } from './scopes.js';

/** The scopes a route needs; ApiKeyGuard answers 403 insufficient_scope when one is missing. */
export const RequireScopes = (...scopes: Scope[]): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_SCOPES, scopes);
