import { DEFAULT_OPTIONS } from '../interview-api.defaults.js';
import type { ResourceDefinition } from '../interview-api.options.js';
import { serializedEntries } from './serialized-entries.js';

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function toJsonValue(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * A host row in its public shape: the definition's toJSON, or, in snake_case, the fields
 * class-transformer keeps in its plain object.
 */
export function toResourceView(definition: ResourceDefinition, row: object): Record<string, unknown> {
  const idProperty = definition.columns?.id ?? DEFAULT_OPTIONS['resources.columns'].id;
  const base = definition.toJSON
    ? definition.toJSON(row)
    : Object.fromEntries(
        serializedEntries(row)
          .filter(([key]) => key !== idProperty)
          .map(([key, value]) => [snakeCase(key), toJsonValue(value)]),
      );
  // The public id and object always win: a row's own `id` (a numeric key beside a renamed public
  // id, say) or `object` field would otherwise list an id that retrieve does not know.
  const { id: _ownId, object: _ownObject, ...fields } = base;
  return { id: (row as Record<string, unknown>)[idProperty], object: definition.object, ...fields };
}

export function filterQueryName(property: string): string {
  return snakeCase(property);
}
