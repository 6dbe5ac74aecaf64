import type { EventEntity } from './event.entity.js';

/** An event as the API returns it and as webhooks carry it (docs/api-contract.md, Event). */
export interface ApiEvent {
  id: string;
  object: 'event';
  type: string;
  api_version: string;
  livemode: boolean;
  created_at: string;
  data: { object: { id: string; object: string; [field: string]: unknown } };
}

export function toApiEvent(event: EventEntity): ApiEvent {
  return JSON.parse(event.payload) as ApiEvent;
}
