import type { SchemaObject } from '@nestjs/swagger';
import type { SessionView } from './session-view.js';

/**
 * The OpenAPI schema of a session as toSessionView writes it: the resource's `schema`, since its
 * `toJSON` shapes the items (the module sets `id` and `object` over it).
 */
export const SESSION_SCHEMA: SchemaObject & {
  properties: Record<Exclude<keyof SessionView, 'id' | 'object'>, SchemaObject>;
} = {
  type: 'object',
  required: ['livemode', 'status', 'candidate_name', 'created_at', 'completed_at'],
  properties: {
    livemode: { type: 'boolean' },
    status: { type: 'string', enum: ['in_progress', 'completed'] },
    candidate_name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
  },
};
