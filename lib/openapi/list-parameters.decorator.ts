import { applyDecorators } from '@nestjs/common';
import { ApiQuery, type SchemaObject } from '@nestjs/swagger';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../pagination/list-params.js';

/** One of a list's own filters: its query name, the schema of its value and what it selects. */
export interface ListFilter {
  name: string;
  schema: SchemaObject;
  description: string;
}

/** An ISO 8601 date or date-time, as the lists read it. */
const TIMESTAMP: SchemaObject = { type: 'string', example: '2026-11-21T09:30:00.000Z' };

/**
 * The query of a list: the shared parameters (docs/api-contract.md, Pagination) and the list's own
 * filters. Any other query parameter is refused with 400.
 */
export function ApiListParameters(...filters: ListFilter[]): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      description: `How many objects a page holds, 1 to ${MAX_LIMIT}; anything else is refused, never clamped.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      description:
        'The previous page’s `next_cursor`, with the same filters. A cursor is signed and bound to its list.',
      schema: { type: 'string', minLength: 1 },
    }),
    ApiQuery({
      name: 'created_gte',
      required: false,
      description: 'Objects created at or after this ISO 8601 time (without an offset: UTC).',
      schema: TIMESTAMP,
    }),
    ApiQuery({
      name: 'created_lt',
      required: false,
      description: 'Objects created before this ISO 8601 time (without an offset: UTC).',
      schema: TIMESTAMP,
    }),
    ...filters.map((filter) =>
      ApiQuery({
        name: filter.name,
        required: false,
        description: filter.description,
        schema: filter.schema,
      }),
    ),
  );
}
