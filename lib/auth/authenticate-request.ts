import { InvalidApiKeyError } from '../errors/api-error.js';
import type { ApiKeysService } from './api-keys.service.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';
import type { RateLimiter } from './rate-limiter.js';

/** The scheme is case-insensitive (RFC 7235 §2.1), and followed by one or more spaces. */
const BEARER = /^Bearer +(\S+)$/i;

/**
 * The key a /v1 request is made with (`Authorization: Bearer <key>`), once it is valid and within
 * its request rate; throws the 401 or 429 otherwise.
 */
export async function authenticateRequest(
  authorization: string | string[] | undefined,
  keys: ApiKeysService,
  rateLimiter: RateLimiter,
): Promise<AuthenticatedApiKey> {
  const token = typeof authorization === 'string' ? BEARER.exec(authorization)?.[1] : undefined;
  if (!token) throw new InvalidApiKeyError('No valid API key provided. Send "Authorization: Bearer <key>".');
  const key = await keys.authenticate(token);
  if (!key) throw new InvalidApiKeyError();
  await rateLimiter.admit(key);
  return { id: key.id, accountId: key.accountId, livemode: key.livemode, scopes: key.scopes };
}
