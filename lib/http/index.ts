export type { AttemptErrorCode } from './attempt-error.js';
export { webhookUrlRefusal } from './webhook-url.js';
export {
  WebhookHttpClient,
  type WebhookHttpClientOptions,
  type WebhookRequest,
  type WebhookResponse,
} from './webhook-http-client.js';
