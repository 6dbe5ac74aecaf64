import type { WebhookEndpointEntity, WebhookEndpointStatus } from './webhook-endpoint.entity.js';

/** An endpoint as the API returns it (docs/api-contract.md, Webhook endpoint). */
export interface WebhookEndpointView {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  description: string | null;
  enabled_events: string[];
  status: WebhookEndpointStatus;
  livemode: boolean;
  created_at: string;
  updated_at: string;
  /** Only on a disabled endpoint. */
  disabled_reason?: string;
  /** Only in the answers to create and rotate_secret. */
  secret?: string;
}

/** The answer to a deletion (DELETE /v1/webhook_endpoints/{id}). */
export interface DeletedWebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  deleted: true;
}

/**
 * The endpoint as the API returns it; `secret`, the signing secret as generated (the entity holds it
 * as stored, encrypted when keys are configured), only in the answers to create and rotate_secret.
 */
export function toWebhookEndpointView(
  endpoint: WebhookEndpointEntity,
  options: { secret?: string } = {},
): WebhookEndpointView {
  const view: WebhookEndpointView = {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    description: endpoint.description,
    enabled_events: [...endpoint.enabledEvents],
    status: endpoint.status,
    livemode: endpoint.livemode,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
  if (endpoint.status === 'disabled' && endpoint.disabledReason)
    view.disabled_reason = endpoint.disabledReason;
  if (options.secret !== undefined) view.secret = options.secret;
  return view;
}
