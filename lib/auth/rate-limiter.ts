import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimitedError } from '../errors/api-error.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { createRedisConnection } from '../redis/redis-connection.js';
import { StallGuard } from '../redis/stall-guard.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';

/**
 * A token bucket per key, in Redis so that every process of the host shares it, on Redis's clock
 * so that their clocks need not agree. KEYS[1] the bucket; ARGV[1] tokens a second, which is also
 * what the bucket holds. Answers 0 when a token was taken, else the milliseconds until one is due
 * (a refused request takes nothing).
 */
const TAKE_TOKEN = `
local rate = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'at', 'tokens')
local tokens = rate
if state[1] then
  tokens = math.min(rate, tonumber(state[2]) + (now - tonumber(state[1])) * rate / 1000)
end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'at', now, 'tokens', tostring(tokens))
redis.call('PEXPIRE', KEYS[1], 2000)
return wait
`;

/** A Redis connection with the bucket script as a command of its own (sent by SHA once loaded). */
interface BucketConnection extends Redis {
  takeToken(bucket: string, rate: number): Promise<number>;
}

/** How long a request waits for Redis before it is let through unmetered. */
const REDIS_TIMEOUT_MS = 250;

/**
 * Meters each API key's requests on /v1. The limit protects the service, never its availability:
 * until Redis first answers, and while it is away or slow, requests go through unmetered.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private connection: BucketConnection | null = null;
  /** Whether the last request was metered: a change to unmetered is logged, once. */
  private metering = false;
  /** While Redis leaves a token unanswered, requests go unmetered without adding to its queue. */
  private readonly stallGuard = new StallGuard();

  constructor(@Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions) {}

  /**
   * Connects once every provider is made: a start that fails while they are made (a database not
   * ready for the module, say) then leaves no connection keeping the process alive.
   */
  onModuleInit(): void {
    if (this.options.rateLimit === false) return;
    const connection = createRedisConnection(this.options.redis, 'producer');
    connection.on('error', () => undefined);
    connection.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_TOKEN });
    this.connection = connection as BucketConnection;
  }

  /**
   * Takes a token for one request of `key`, or refuses the request with 429 and how long to wait.
   * With limits off, or while Redis does not answer, every request is let through.
   */
  async admit(key: AuthenticatedApiKey): Promise<void> {
    const { rateLimit } = this.options;
    if (rateLimit === false || this.connection === null) return;
    const limit = key.livemode ? rateLimit.live : rateLimit.test;
    const waitMs = await this.waitFor(this.connection, `${this.options.queuePrefix}:rate:${key.id}`, limit);
    if (waitMs > 0) throw new RateLimitedError(Math.ceil(waitMs / 1000), limit);
  }

  private async waitFor(connection: BucketConnection, bucket: string, limit: number): Promise<number> {
    if (connection.status !== 'ready') return this.unmetered('Redis is not connected');
    try {
      const waitMs = await this.stallGuard.answerWithin(
        () => connection.takeToken(bucket, limit),
        REDIS_TIMEOUT_MS,
      );
      this.metering = true;
      return waitMs;
    } catch (error) {
      return this.unmetered(String(error));
    }
  }

  private unmetered(reason: string): number {
    if (this.metering) this.logger.warn(`Rate limits are off until Redis answers again: ${reason}`);
    this.metering = false;
    return 0;
  }

  onApplicationShutdown(): void {
    this.connection?.disconnect();
  }
}
