import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  getSchemaPath,
  type ReferenceObject,
  type SchemaObject,
} from '@nestjs/swagger';

/** The envelope of every list (docs/api-contract.md, List) around items of `items`. */
export function listEnvelopeSchema(items: SchemaObject | ReferenceObject): SchemaObject {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more', 'next_cursor'],
    properties: {
      object: { type: 'string', enum: ['list'] },
      data: { type: 'array', items, description: 'Newest first.' },
      has_more: { type: 'boolean', description: 'Whether a next page may hold more.' },
      next_cursor: {
        type: ['string', 'null'],
        description: 'The `cursor` of the next page, or null on the last.',
      },
    },
  };
}

/** A 200 answering a list of `item`s, a schema class. */
export function ApiListResponse(item: Type<unknown>, description: string): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({ description, schema: listEnvelopeSchema({ $ref: getSchemaPath(item) }) }),
  );
}
