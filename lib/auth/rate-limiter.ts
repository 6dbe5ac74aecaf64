import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Redis } from 'ioredis';
import { InternalApiError, RateLimitedError } from '../errors/api-error.js';
import type { RateLimitState } from '../errors/rate-limit-headers.js';
import { RepeatLimitedWarnings } from '../errors/repeat-limited-warnings.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { createRedisConnection } from '../redis/redis-connection.js';
import { StallGuard } from '../redis/stall-guard.js';
import { AddressFailures } from './address-failures.js';
import type { AuthenticatedApiKey } from './authenticated-api-key.js';
import { clientAddressKey } from './client-address.js';
import {
  KNOWN_KEY_MAX_AGE_MS,
  RATE_LIMIT_CONNECT_GRACE_MS,
  RATE_LIMIT_REDIS_TIMEOUT_MS,
  REVOCATION_READY_WAIT_MS,
} from '../interview-api.tuning.js';

/** A key's revocation mark outlives, twice over, whatever any process knew of the key before it. */
const REVOCATION_MARK_MS = 2 * KNOWN_KEY_MAX_AGE_MS;

/**
 * A metered request's answer from Redis: the bucket once a token was taken, or that the key is
 * marked revoked; `generation` the connection's (see connectionGeneration) when it was asked.
 */
export interface Admission {
  revoked: boolean;
  bucket: RateLimitState | null;
  generation: number;
}

/**
 * A token bucket per key, in Redis so every process shares it, on Redis's clock so theirs need not
 * agree. KEYS[1] the bucket; KEYS[2] the key's revocation mark; ARGV[1] tokens a second, also the
 * bucket's size. Answers, in the one round trip: 0 when a token was taken, else the milliseconds
 * until one is due (a refused request takes nothing), or -1 for a key marked revoked (nothing
 * taken); the whole tokens left; the whole seconds, rounded up, until the bucket is full.
 */
const TAKE_TOKEN = `
if redis.call('EXISTS', KEYS[2]) == 1 then return {-1, 0, 0} end
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
return {wait, math.floor(tokens), math.ceil((rate - tokens) / rate)}
`;

/**
 * A client address's failed authentications in a fixed window. KEYS[1] the counter; ARGV[1] the
 * window in milliseconds. Answers the count with this one and the milliseconds the window has left.
 */
const COUNT_FAILURE = `
local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}
`;

/** A Redis connection with the scripts as commands of their own (sent by SHA once loaded). */
interface BucketConnection extends Redis {
  takeToken(
    bucket: string,
    revoked: string,
    rate: number,
  ): Promise<[waitMs: number, remaining: number, resetSeconds: number]>;
  countFailure(counter: string, windowMs: number): Promise<[number, number]>;
}

/** A look-up nothing counts: failed authentications are not limited, or the address is unknown. */
const NOTHING_TO_COUNT = async (): Promise<void> => undefined;

/**
 * Meters each API key's requests on /v1, and, when the host asks for it, each client address's
 * failed authentications. The limits protect the service, never its availability: until Redis
 * first answers, and while it is away or slow, requests go through unmetered.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private connection: BucketConnection | null = null;
  /** Why requests go unmetered: said once a minute at most while it lasts, again once it is over. */
  private readonly unmeteredWarnings = new RepeatLimitedWarnings((message) => this.logger.warn(message));
  /** While Redis leaves a token unanswered, requests go unmetered without adding to its queue. */
  private readonly stallGuard = new StallGuard();
  /** Until when a connection not ready yet is the start's, not news. */
  private quietUntil = 0;
  /**
   * How many times the connection has become ready: a revocation mark Redis held before it went away
   * may be gone when it comes back, so what a mark vouched for under an earlier connection is not
   * vouched for now.
   */
  private connections = 0;
  /** Null unless the host limits failed authentications. */
  private readonly failures: AddressFailures | null;
  private readonly failureWindowMs: number;

  constructor(
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    const limit = options.rateLimit === false ? false : options.rateLimit.failedAuthentications;
    this.failures = limit === false ? null : new AddressFailures(limit.limit);
    this.failureWindowMs = limit === false ? 0 : limit.windowMs;
  }

  /**
   * Connects once every provider is made: a start that fails while they are made (a database not
   * ready for the module, say) then leaves no connection keeping the process alive.
   */
  onModuleInit(): void {
    if (this.options.rateLimit === false) return;
    const connection = createRedisConnection(this.options.redis, 'rate-limiter');
    // A Redis never reached, or refusing the credentials, is said at start, not at the first request.
    connection.on('error', (error: Error) => this.unmetered(error.message));
    // A connection that never becomes ready raises no error when the server accepts it and answers
    // nothing: past the start's grace, a request meeting it says so.
    this.quietUntil = Date.now() + RATE_LIMIT_CONNECT_GRACE_MS;
    connection.on('ready', () => {
      this.quietUntil = 0;
      this.connections++;
    });
    connection.defineCommand('takeToken', { numberOfKeys: 2, lua: TAKE_TOKEN });
    connection.defineCommand('countFailure', { numberOfKeys: 1, lua: COUNT_FAILURE });
    this.connection = connection as BucketConnection;
  }

  /**
   * `trust proxy` true makes `request.ip` the leftmost X-Forwarded-For address, which any client
   * writes: counted by it, an attacker would never be refused and could have any address refused.
   */
  onApplicationBootstrap(): void {
    const app = this.adapterHost.httpAdapter?.getInstance<{ get?(setting: string): unknown }>();
    if (this.failures !== null && app?.get?.('trust proxy') === true) {
      this.logger.warn(
        "rateLimit.failedAuthentications counts clients by request.ip, which `trust proxy` true takes from the leftmost X-Forwarded-For address, written by the client: set the number of proxies in front (app.set('trust proxy', 1)) or their addresses instead.",
      );
    }
  }

  /** The connection's generation: 0 before it is first ready, then one more each time it is ready again. */
  get connectionGeneration(): number {
    return this.connections;
  }

  /**
   * Takes a token for one request of `key` and answers its bucket as the token left it, or refuses
   * the request with 429, how long to wait and the bucket. A key marked revoked takes nothing and is
   * answered `revoked`. With limits off, or while Redis does not answer, every request is let through
   * unmetered (null), and nothing is said of revocation.
   */
  async admit(key: AuthenticatedApiKey): Promise<Admission | null> {
    const { rateLimit } = this.options;
    const { connection } = this;
    if (rateLimit === false || connection === null) return null;
    const limit = key.livemode ? rateLimit.live : rateLimit.test;
    const generation = this.connections;
    const answer = await this.ask(() =>
      connection.takeToken(this.bucketOf(key.id), this.revocationMarkOf(key.id), limit),
    );
    if (answer === undefined) return null;
    const [waitMs, remaining, resetSeconds] = answer;
    if (waitMs < 0) return { revoked: true, bucket: null, generation };
    const state: RateLimitState = { limit, remaining, resetSeconds };
    if (waitMs > 0) {
      const retryAfter = Math.ceil(waitMs / 1000);
      throw new RateLimitedError(
        retryAfter,
        `Too many requests with this API key: at most ${limit} a second in this mode. Retry after ${retryAfter} s.`,
        state,
      );
    }
    return { revoked: false, bucket: state, generation };
  }

  /**
   * Marks key `id` revoked for every process, before the database says so: a process that knows the
   * key from an earlier request asks Redis, not the database, whether it still holds (see admit). The
   * mark outlives anything known of the key before it. Throws when Redis does not take it, so that a
   * revocation is never recorded where some process would not see it; with limits off, no process
   * knows keys, and nothing is marked.
   */
  async markRevoked(id: string): Promise<void> {
    const { connection } = this;
    if (this.options.rateLimit === false || connection === null) return;
    await this.readyWithin(connection, REVOCATION_READY_WAIT_MS);
    const marked = await this.ask(() =>
      connection.set(this.revocationMarkOf(id), '1', 'PX', REVOCATION_MARK_MS),
    );
    if (marked !== 'OK') {
      this.logger.warn(`API key ${id} not revoked: Redis did not take its revocation mark.`);
      throw new InternalApiError();
    }
  }

  /**
   * Waits up to `ms` for a connection still being made (at start, or after a drop), so that a
   * revocation then is not refused for a Redis that answers a moment later.
   */
  private readyWithin(connection: BucketConnection, ms: number): Promise<void> {
    if (connection.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => {
      const ready = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        connection.off('ready', ready);
        resolve();
      }, ms);
      connection.once('ready', ready);
    });
  }

  private bucketOf(id: string): string {
    return `${this.options.queuePrefix}:rate:${id}`;
  }

  private revocationMarkOf(id: string): string {
    return `${this.options.queuePrefix}:revoked:${id}`;
  }

  /**
   * Admits the key look-up of a request from `ip` in its turn, or refuses it with 429 when the
   * address is over its failures for the window or has too many waiting. Answers the call that ends
   * the look-up: a key not found counts against the address in Redis, for every process.
   */
  async beginLookup(ip: string | undefined): Promise<(found: boolean) => Promise<void>> {
    const { failures } = this;
    const address = failures === null ? null : clientAddressKey(ip);
    if (failures === null || address === null) return NOTHING_TO_COUNT;
    const admission = await failures.begin(address, Date.now);
    if (!admission.started) {
      const retryAfter = Math.ceil(admission.refusedForMs / 1000);
      throw new RateLimitedError(
        retryAfter,
        admission.burst
          ? `Too many requests at once from this address waiting for their API keys to be checked. Retry after ${retryAfter} s.`
          : `Too many requests with an invalid API key from this address. Retry after ${retryAfter} s.`,
      );
    }
    return async (found) => {
      try {
        if (!found) await this.countFailure(address, failures);
      } finally {
        failures.end(address, Date.now());
      }
    };
  }

  private async countFailure(address: string, failures: AddressFailures): Promise<void> {
    const { connection, failureWindowMs } = this;
    if (connection === null) return;
    const counter = `${this.options.queuePrefix}:auth-failures:${address}`;
    const answer = await this.ask(() => connection.countFailure(counter, failureWindowMs));
    if (answer !== undefined) failures.counted(address, answer[0], answer[1], Date.now());
  }

  /** Redis's answer, or undefined (unmetered) while Redis is not connected, stalls or fails. */
  private async ask<T>(send: () => Promise<T>): Promise<T | undefined> {
    if (this.connection?.status !== 'ready') {
      return Date.now() < this.quietUntil ? undefined : this.unmetered('Redis is not connected');
    }
    try {
      const answer = await this.stallGuard.answerWithin(send, RATE_LIMIT_REDIS_TIMEOUT_MS);
      this.unmeteredWarnings.clear();
      return answer;
    } catch (error) {
      return this.unmetered(String(error));
    }
  }

  private unmetered(reason: string): undefined {
    this.unmeteredWarnings.add(`Rate limits are off until Redis answers again: ${reason}`);
    return undefined;
  }

  onApplicationShutdown(): void {
    this.connection?.disconnect();
  }
}
