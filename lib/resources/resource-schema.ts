import type { SchemaObject } from '@nestjs/swagger';
import { instanceToPlain } from 'class-transformer';
import { getMetadataArgsStorage } from 'typeorm';
import type { ColumnMetadataArgs } from 'typeorm/metadata-args/ColumnMetadataArgs.js';
import { DEFAULT_OPTIONS } from '../interview-api.defaults.js';
import type { ResourceDefinition } from '../interview-api.options.js';
import type { ListFilter } from '../openapi/list-parameters.decorator.js';
import { columnValueParser, typeName } from './column-value.js';
import { filterQueryName } from './resource-view.js';

const TEXT = /char|text|clob|string/;
const INTEGER = new Set(['integer', 'int', 'int2', 'int4', 'smallint', 'tinyint', 'mediumint']);
/** Types node-postgres hands over as text, beyond JavaScript's numbers; SQLite's as numbers. */
const BIG_INTEGER = new Set(['bigint', 'int8', 'int64', 'unsigned big int']);
const DECIMAL = new Set(['decimal', 'numeric', 'dec']);
const FLOAT = new Set(['real', 'float', 'float4', 'float8', 'double', 'double precision', 'number']);
const TIMESTAMP = /^(timestamp|datetime)/;

/** An enum column's values: a list, or a TypeScript enum's. */
function enumValues(args: ColumnMetadataArgs): (string | number)[] | undefined {
  const values = args.options.enum;
  if (values === undefined) return undefined;
  return Array.isArray(values) ? values : (Object.values(values) as (string | number)[]);
}

/** The JSON value of a column of `args` as toResourceView writes it, null aside. */
function valueSchema(args: ColumnMetadataArgs): SchemaObject {
  const { options } = args;
  const values = enumValues(args);
  if (values !== undefined) return { enum: values };
  if (options.type === undefined) return {};
  const type = options.type === Number ? 'number' : typeName(options.type);
  if (type === 'simple-array') return { type: 'array', items: { type: 'string' } };
  if (type === 'boolean' || type === 'bool') return { type: 'boolean' };
  if (INTEGER.has(type)) return { type: 'integer' };
  if (BIG_INTEGER.has(type)) return { type: ['integer', 'string'] };
  if (DECIMAL.has(type)) return { type: ['number', 'string'] };
  if (FLOAT.has(type)) return { type: 'number' };
  if (TIMESTAMP.test(type)) return { type: 'string', format: 'date-time' };
  if (type === 'date') return { type: 'string', format: 'date' };
  if (type === 'uuid') return { type: 'string', format: 'uuid' };
  if (TEXT.test(type)) return { type: 'string' };
  // JSON, binary and the rest: whatever the driver reads.
  return {};
}

/** A column's schema as listed: an array column's values in an array, and null where it may be. */
function columnSchema(args: ColumnMetadataArgs): SchemaObject {
  const value = valueSchema(args);
  const schema: SchemaObject = args.options.array ? { type: 'array', items: value } : value;
  if (!args.options.nullable) return schema;
  if (schema.type === undefined) return schema.enum ? { ...schema, enum: [...schema.enum, null] } : schema;
  return { ...schema, type: [...[schema.type].flat(), 'null'] };
}

/**
 * Whether class-transformer keeps `property` in a row's plain object, as serializedEntries reads a
 * row: probed alone, so that a transform of another property never runs; a transform that fails on
 * the probe's value is one of a kept property (an excluded one is never transformed).
 */
function keptByClassTransformer(entity: ResourceDefinition['entity'], property: string): boolean {
  const probe = Object.create(entity.prototype as object) as Record<string, unknown>;
  probe[property] = 1;
  try {
    return Object.hasOwn(instanceToPlain(probe), property);
  } catch {
    return true;
  }
}

/**
 * The columns a listed row has: loaded (not `select: false`, not virtual) and kept by
 * class-transformer.
 */
function listedColumns(entity: ResourceDefinition['entity']): ColumnMetadataArgs[] {
  return getMetadataArgsStorage()
    .filterColumns(entity)
    .filter((column) => column.mode !== 'virtual' && column.options.select !== false)
    .filter((column) => keptByClassTransformer(entity, column.propertyName));
}

/**
 * One item of a host resource as the API answers it: the definition's `schema`, else the entity's
 * columns in snake_case (no `toJSON`), else any object; with `id` and `object` as the module sets them.
 */
export function resourceItemSchema(definition: ResourceDefinition): SchemaObject {
  const idProperty = definition.columns?.id ?? DEFAULT_OPTIONS['resources.columns'].id;
  const columns = listedColumns(definition.entity);
  const idColumn = columns.find((column) => column.propertyName === idProperty);
  const fixed: Record<string, SchemaObject> = {
    id: idColumn ? valueSchema(idColumn) : {},
    object: { type: 'string', enum: [definition.object] },
  };
  let fields: SchemaObject;
  if (definition.schema) {
    fields = definition.schema;
  } else if (definition.toJSON) {
    fields = { type: 'object', additionalProperties: true };
  } else {
    const own = columns.filter((column) => column.propertyName !== idProperty);
    fields = {
      type: 'object',
      properties: Object.fromEntries(
        own.map((column) => [filterQueryName(column.propertyName), columnSchema(column)]),
      ),
      required: own.map((column) => filterQueryName(column.propertyName)),
    };
  }
  return {
    ...fields,
    type: 'object',
    properties: { ...fields.properties, ...fixed },
    required: [...new Set(['id', 'object', ...(fields.required ?? [])])],
  };
}

/** The list's filters as query parameters, each with what its column's values may be. */
export function resourceFilters(definition: ResourceDefinition): ListFilter[] {
  const columns = listedColumnsByProperty(definition.entity);
  return (definition.filters ?? DEFAULT_OPTIONS['resources.filters']).map((property) => {
    const column = columns.get(property);
    const parser =
      column &&
      columnValueParser({
        type: column.options.type ?? 'varchar',
        enum: enumValues(column),
        isArray: Boolean(column.options.array),
        precision: column.options.precision,
        scale: column.options.scale,
      });
    const name = filterQueryName(property);
    return {
      name,
      schema: column ? { ...valueSchema(column), type: 'string' } : { type: 'string' },
      description: parser
        ? `Only the objects whose ${name} is this: ${parser.expected}.`
        : `Only this ${name}.`,
    };
  });
}

function listedColumnsByProperty(entity: ResourceDefinition['entity']): Map<string, ColumnMetadataArgs> {
  return new Map(
    getMetadataArgsStorage()
      .filterColumns(entity)
      .map((column) => [column.propertyName, column]),
  );
}
