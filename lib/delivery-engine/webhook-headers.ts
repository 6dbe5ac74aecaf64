import { signWebhook } from '../signing/index.js';

/**
 * The headers of one attempt (docs/api-contract.md, Webhooks as the receiver sees them), signed with
 * the endpoint's current secret so that a retry after a rotation never carries the old signature.
 */
export function webhookHeaders(
  userAgent: string,
  eventId: string,
  secret: string,
  body: string,
  now: Date,
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, eventId, timestamp, body),
  };
}
