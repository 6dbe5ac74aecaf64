import { randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * A new endpoint secret in the Standard Webhooks format. 32 random bytes (256 bits) sits above the
 * spec's 24-byte floor, so the HMAC key can't be brute-forced from captured deliveries.
 */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** Standard base64, its padding at the end if anywhere: what the reference libraries decode. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The raw HMAC key behind a `whsec_` secret (prefix optional). Only strict base64 is accepted, as by
 * the reference libraries: Node's lenient decoder would turn a mistyped secret into a key of a byte or
 * two, whose signatures anyone can forge.
 */
export function decodeWebhookSecret(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(encoded)) throw new Error('webhook secret is not base64 after its whsec_ prefix');
  const key = Buffer.from(encoded, 'base64');
  // An empty HMAC key is public knowledge: anyone could then forge valid signatures.
  if (key.length === 0) throw new Error('webhook secret decodes to an empty key');
  return key;
}
