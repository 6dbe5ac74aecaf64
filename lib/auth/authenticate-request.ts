import { InvalidApiKeyError } from '../errors/api-error.js';
import type { RateLimitState } from '../errors/rate-limit-headers.js';
import { hashApiKey } from './api-key-format.js';
import type { ApiKeysService } from './api-keys.service.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';
import type { Admission, RateLimiter } from './rate-limiter.js';

/** The scheme is case-insensitive (RFC 7235 §2.1), and followed by one or more spaces. */
const BEARER = /^Bearer +(\S+)$/i;
/** Basic credentials (RFC 7617): base64 of `<user>:<password>`. */
const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2})$/i;

/**
 * The key a request presents: `Bearer <key>`, or the key as the user name of Basic credentials
 * with the password left out, as `curl -u <key>:` sends it and Stripe's clients do.
 */
function presentedKey(authorization: string | string[] | undefined): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const bearer = BEARER.exec(authorization);
  if (bearer) return bearer[1];
  const basic = BASIC.exec(authorization);
  if (!basic) return undefined;
  return /^([^:]+):$/.exec(Buffer.from(basic[1], 'base64').toString('utf8'))?.[1];
}

/** What of a request authenticates it: its Authorization header, and the client's address. */
export interface PresentedCredentials {
  authorization: string | string[] | undefined;
  /** `request.ip`: the socket's address, or a proxy's client address under Express's `trust proxy`. */
  ip: string | undefined;
}

/** A /v1 request's key, and its bucket once the request took a token (null when unmetered). */
export interface AdmittedRequest {
  key: AuthenticatedApiKey;
  bucket: RateLimitState | null;
}

/**
 * The key a /v1 request is made with, once valid and within its rate; throws the 401 or 429
 * otherwise. Under the failed-authentication limit, a key not found counts against the client's
 * address, and an address over the limit is refused before its key is looked up.
 *
 * A key this process found valid before is not read again while Redis, in the rate limiter's one
 * round trip, says it is not marked revoked (a revocation marks it there before the database says
 * so) on the same connection it was read under; otherwise, and while requests go unmetered, the key
 * is read from the database.
 */
export async function authenticateRequest(
  { authorization, ip }: PresentedCredentials,
  keys: ApiKeysService,
  rateLimiter: RateLimiter,
): Promise<AdmittedRequest> {
  const token = presentedKey(authorization);
  if (!token) throw new InvalidApiKeyError('No valid API key provided. Send "Authorization: Bearer <key>".');
  const lookedUp = await rateLimiter.beginLookup(ip);
  // Hashed once: the known keys and the database both look a key up by its hash.
  const keyHash = hashApiKey(token);
  const known = keys.known(keyHash);
  let admission: Admission | null | undefined;
  if (known !== undefined) {
    admission = await rateLimiter.admit(known.key).catch(async (error: unknown) => {
      await lookedUp(true);
      throw error;
    });
    if (admission !== null && !admission.revoked && admission.generation === known.generation) {
      void lookedUp(true);
      keys.used(known);
      return { key: known.key, bucket: admission.bucket };
    }
    keys.forget(keyHash);
  }
  const key = await keys.authenticate(token, keyHash).catch(async (error: unknown) => {
    await lookedUp(true);
    throw error;
  });
  if (!key) {
    await lookedUp(false);
    throw new InvalidApiKeyError();
  }
  // Found: nothing to count, only the look-up to end, at once; no wait on the guard's path.
  void lookedUp(true);
  if (admission === undefined) admission = await rateLimiter.admit(key);
  if (admission?.revoked) {
    // Marked revoked, not yet in the database (or its revocation failed there): refused all the same.
    keys.forget(keyHash);
    throw new InvalidApiKeyError();
  }
  return {
    key: { id: key.id, accountId: key.accountId, livemode: key.livemode, scopes: key.scopes },
    bucket: admission?.bucket ?? null,
  };
}
