import type { Request } from 'express';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';

/** A request that passed ApiKeyGuard. */
export interface ApiKeyRequest extends Request {
  apiKey: AuthenticatedApiKey;
}
