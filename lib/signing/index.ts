export { generateWebhookSecret, decodeWebhookSecret } from './webhook-secret.js';
export { signWebhook } from './sign-webhook.js';
export {
  verifyWebhook,
  type HeadersLike,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from './verify-webhook.js';
export { WebhookVerificationError, type WebhookVerificationFailure } from './webhook-verification.error.js';
