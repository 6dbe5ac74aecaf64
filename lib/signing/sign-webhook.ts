import { createHmac } from 'node:crypto';

import { decodeWebhookSecret } from './webhook-secret.js';

/**
 * The Standard Webhooks v1 signature, `v1,<base64 HMAC-SHA256("<msgId>.<timestamp>.<body>")>`.
 * The body is hashed as given (a Buffer is not re-encoded), because a receiver verifies the exact
 * bytes it got: any re-serialisation on either side would break the match.
 */
export function signWebhook(
  secret: string,
  msgId: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  // A fractional or exponent-formatted timestamp would be signed as text no receiver can reproduce.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError('timestampSeconds must be a non-negative integer');
  }
  const mac = createHmac('sha256', decodeWebhookSecret(secret))
    .update(`${msgId}.${timestampSeconds}.`)
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}
