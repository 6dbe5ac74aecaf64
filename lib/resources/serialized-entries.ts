import { instanceToPlain } from 'class-transformer';

/** Per row class, whether class-transformer keeps each property its rows have shown so far. */
const keptByClass = new WeakMap<object, Map<string, boolean>>();

/**
 * The row's own fields that class-transformer keeps in its plain object, as a host's
 * ClassSerializerInterceptor serves it: a property marked `@Exclude()`, or not `@Expose()`d under a
 * class-level `@Exclude()`, is the host's private data, not an API key's. Whether a property is kept
 * depends on its class alone, so one row of a class settles it for the rows after it. Groups and
 * versions are not applied (the view has no request to take them from); a property renamed by
 * `@Expose({ name })` is left out, since the view names a field after its property.
 */
export function serializedEntries(row: object): [string, unknown][] {
  const entries = Object.entries(row);
  let kept = keptByClass.get(row.constructor);
  if (kept === undefined) {
    kept = new Map();
    keptByClass.set(row.constructor, kept);
  }
  if (entries.some(([property]) => !kept.has(property))) {
    const plain = instanceToPlain(row);
    for (const [property] of entries) kept.set(property, Object.hasOwn(plain, property));
  }
  return entries.filter(([property]) => kept.get(property) === true);
}
