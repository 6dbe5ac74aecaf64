/** The body of POST /v1/webhook_endpoints (docs/api-contract.md, Webhook endpoints). */
export interface CreateWebhookEndpointInput {
  url: string;
  enabled_events: string[];
  description?: string | null;
}

/** The body of PATCH /v1/webhook_endpoints/{id}: the fields to change; `description: null` clears it. */
export interface UpdateWebhookEndpointInput {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
  disabled?: boolean;
}
