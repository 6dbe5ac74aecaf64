import { Redis, type RedisOptions } from 'ioredis';
import { isIoredisClient } from './ioredis-client.js';

/**
 * A connection of the module's own, from the host's ioredis options or instance. Workers need
 * `maxRetriesPerRequest: null` for their blocking commands. The others (the queue's producer, the
 * rate limiter) fail fast instead of queueing commands while Redis is away: the database, not
 * Redis, keeps every delivery, and a request is never held up for a rate limit.
 */
export function createRedisConnection(source: RedisOptions | Redis, role: 'producer' | 'worker'): Redis {
  const base: RedisOptions = isIoredisClient(source) ? source.options : source;
  return new Redis({
    ...base,
    lazyConnect: false,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
  });
}
