import { Redis, type RedisOptions } from 'ioredis';
import { isIoredisClient } from './ioredis-client.js';

/**
 * A connection of the module's own, from the host's ioredis options or instance. Workers need
 * `maxRetriesPerRequest: null` for blocking commands; the producer and the rate limiter fail fast while
 * Redis is away: the database keeps every delivery, and no request waits for a rate limit. The rate
 * limiter's commands, one per API request, are pipelined: those of concurrent requests go to Redis in
 * one write, in order, rather than a socket write each.
 */
export function createRedisConnection(
  source: RedisOptions | Redis,
  role: 'producer' | 'worker' | 'rate-limiter',
): Redis {
  const base: RedisOptions = isIoredisClient(source) ? source.options : source;
  return new Redis({
    ...base,
    lazyConnect: false,
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    ...(role === 'rate-limiter' ? { enableAutoPipelining: true } : {}),
  });
}
