import type { Cluster, Redis } from 'ioredis';

/**
 * Whether the host's `redis` option is an ioredis Cluster. Told by ioredis's own marker rather than
 * `instanceof`: a host's client may come from another copy of ioredis (its own node_modules, another
 * version), whose classes are not the module's.
 */
export function isIoredisCluster(value: object): value is Cluster {
  return (value as { isCluster?: unknown }).isCluster === true;
}

/**
 * Whether the host's `redis` option is a single-server ioredis client rather than its options, by
 * its shape for the same reason: a client of another copy taken for options would be spread as
 * such, and the module would connect to localhost with none of its settings.
 */
export function isIoredisClient(value: object): value is Redis {
  const { duplicate, options } = value as { duplicate?: unknown; options?: unknown };
  return (
    !isIoredisCluster(value) &&
    typeof duplicate === 'function' &&
    typeof options === 'object' &&
    options !== null
  );
}
