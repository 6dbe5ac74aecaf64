import { randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * A new endpoint secret in the Standard Webhooks format. 32 random bytes (256 bits) sits above the
 * spec's 24-byte floor, so the HMAC key can't be brute-forced from captured deliveries.
 */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The raw HMAC key behind a `whsec_` secret. The prefix is optional, as in the reference libraries. */
export function decodeWebhookSecret(secret: string): Buffer {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  // An empty HMAC key is public knowledge: anyone could then forge valid signatures.
  if (key.length === 0) throw new Error('webhook secret decodes to an empty key');
  return key;
}
