import { instanceToPlain } from 'class-transformer';

/** Per row class, whether class-transformer keeps each property its rows have shown so far. */
const keptByClass = new WeakMap<object, Map<string, boolean>>();

/**
 * The row's own fields class-transformer keeps in its plain object, as ClassSerializerInterceptor
 * would: an excluded property is the host's private data, never an API key's. Settled once per
 * class; groups and versions are not applied, and a field renamed by `@Expose({ name })` is left out.
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
