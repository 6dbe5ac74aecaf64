import { timingSafeEqual } from 'node:crypto';

import { signWebhook } from './sign-webhook.js';
import { WebhookVerificationError } from './webhook-verification.error.js';

/** A fetch `Headers` object, or anything else that looks headers up by name. */
export interface HeadersLike {
  get(name: string): string | null | undefined;
}

/** Node's `IncomingHttpHeaders`, a plain record, or a `Headers`-like object. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | HeadersLike;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way. Defaults to 300 s, as in the spec. */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch, like `Date.now`. */
  now?: () => number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks a Standard Webhooks v1 delivery; throws `WebhookVerificationError` unless it is authentic and
 * fresh. `rawBody` must be the bytes exactly as received, not re-serialised JSON. A secret that decodes
 * to no key throws a plain `Error`: the receiver's mistake, not a forged request.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): void {
  const msgId = readHeader(headers, 'webhook-id');
  const timestamp = readHeader(headers, 'webhook-timestamp');
  const signatures = readHeader(headers, 'webhook-signature');
  if (!msgId || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing_headers',
      'webhook-id, webhook-timestamp and webhook-signature headers are required',
    );
  }

  // The timestamp is signed, so bounding its age stops a captured delivery from being replayed later.
  // A malformed value becomes NaN, which fails the comparison and is refused the same way.
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  // Digits beyond a safe integer are no time a sender signs, whatever the tolerance.
  const sentAt =
    /^\d+$/.test(timestamp) && Number.isSafeInteger(Number(timestamp)) ? Number(timestamp) : Number.NaN;
  if (!(Math.abs(nowSeconds - sentAt) <= toleranceSeconds)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      'webhook-timestamp is outside the tolerance',
    );
  }

  // Comparing the whole `v1,<sig>` entry also skips entries of other versions. Several entries are
  // sent while a secret is being rotated, and any one of them may match.
  const expected = Buffer.from(signWebhook(secret, msgId, sentAt, rawBody));
  for (const entry of signatures.split(' ')) {
    const candidate = Buffer.from(entry);
    // timingSafeEqual throws on unequal lengths; the length itself reveals nothing about the key.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return;
  }
  throw new WebhookVerificationError('invalid_signature', 'no webhook-signature entry matches');
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as HeadersLike).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  // Node lowercases incoming header names, but a hand-built record may not.
  const key = name in record ? name : Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  // Repeated headers arrive as arrays; joining keeps every signature entry a sender split across them.
  return Array.isArray(value) ? value.join(' ') : value;
}
