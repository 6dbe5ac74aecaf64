import { type Type } from '@nestjs/common';
import type { Redis, RedisOptions } from 'ioredis';
import { isScope, type Scope } from './auth/scopes.js';
import { SQLITE_MAX_BOUND_VALUES } from './database/sql-dialect.js';
import { isIoredisClient, isIoredisCluster } from './redis/ioredis-client.js';
import { calendarDayYear } from './request/iso-timestamp.js';

/** A host entity exposed under /v1 (see the README, "Host resources"). */
export interface ResourceDefinition<T = object> {
  /** URL segment: `GET /v1/<path>` and `GET /v1/<path>/:id`. */
  path: string;
  entity: Type<T>;
  /** The `object` value of each item, e.g. `session`. */
  object: string;
  scope: Scope;
  /** Entity properties clients may filter on with `?<snake_case>=value`. */
  filters?: string[];
  /** Renames of the four properties the module relies on. */
  columns?: Partial<Record<'id' | 'accountId' | 'livemode' | 'createdAt', string>>;
  /**
   * The public shape; by default the entity's fields that class-transformer keeps in its plain
   * object (no `@Exclude()`d one), in snake_case with `object` added. A method,
   * so that a definition typed with its entity (`ResourceDefinition<Session>`) is one of the
   * `resources` forRoot takes.
   */
  toJSON?(row: T): Record<string, unknown>;
}

export interface WebhookOptions {
  /** Total time budget of one attempt, connect included. Default 10,000. */
  timeoutMs?: number;
  /** Delays before attempts 2, 3, ...; the first attempt runs at once. */
  retryScheduleMs?: number[];
  /** Development and tests only: allows http:// and private or loopback targets. */
  allowInsecureUrls?: boolean;
  /**
   * Sends in flight per worker process, which holds at most 16 times as many claimed deliveries, or
   * one `batchSize` when that is more. Default 50.
   */
  concurrency?: number;
  /** Deliveries per queue job, and the most outcomes recorded together. Default 200, at most 32,762. */
  batchSize?: number;
  /** How often a worker looks for due deliveries no job carries (Redis flushed or down). Default 30,000. */
  sweepIntervalMs?: number;
  /** An endpoint failing every attempt for this long is disabled. Default 5 days. */
  disableAfterMs?: number;
  /** Webhook endpoints one account may have in each mode (every event fans out to all of them). Default 100. */
  maxEndpoints?: number;
}

/**
 * Failed authentications one client address may make (by `request.ip`, so behind a proxy set
 * Express's `trust proxy`); past them its requests are refused until the window ends.
 */
export interface FailedAuthenticationLimit {
  /** Default 100. */
  limit?: number;
  /** Default 60,000. */
  windowMs?: number;
}

/** Requests per second an API key may make, per mode; a key's bucket holds one second's worth. */
export interface RateLimitOptions {
  /** Default 100, as Stripe allows a live key. */
  live?: number;
  /** Default 25, as Stripe allows a test key. */
  test?: number;
  /** Off by default: a limit per client address on requests with an unknown or revoked key. */
  failedAuthentications?: FailedAuthenticationLimit | false;
}

/** The rate limits after validation, with every default filled in. */
export interface ResolvedRateLimit {
  live: number;
  test: number;
  failedAuthentications: Required<FailedAuthenticationLimit> | false;
}

export interface InterviewApiModuleOptions {
  keyPrefix: string;
  cursorSecret: string;
  redis: RedisOptions | Redis;
  serviceName?: string;
  apiVersion?: string;
  eventTypes?: string[];
  webhooks?: WebhookOptions;
  worker?: boolean;
  /** Prefix of the module's BullMQ keys in Redis. Default `interview-api`. */
  queuePrefix?: string;
  /** Age after which events and their deliveries are purged. Default 30 days, at most 100 years. */
  eventRetentionMs?: number;
  /** The largest event `publish` takes, in bytes of its JSON. Default 262,144 (256 KiB). */
  maxEventBytes?: number;
  /** Per-key request rates on /v1, shared by every process on the Redis; `false` turns them off. */
  rateLimit?: RateLimitOptions | false;
}

export const BUILT_IN_EVENT_TYPES = ['result.ready', 'result.updated', 'webhook.test'] as const;
const DEFAULT_API_VERSION = '2026-11-21';
const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** The options after validation, with every default filled in. */
export interface ResolvedOptions {
  keyPrefix: string;
  cursorSecret: string;
  redis: RedisOptions | Redis;
  serviceName: string;
  apiVersion: string;
  eventTypes: readonly string[];
  webhooks: Required<WebhookOptions>;
  worker: boolean;
  queuePrefix: string;
  eventRetentionMs: number;
  maxEventBytes: number;
  rateLimit: ResolvedRateLimit | false;
}

export class InvalidModuleOptionsError extends Error {
  constructor(option: string, problem: string) {
    super(`InterviewApiModule option "${option}" ${problem}`);
    this.name = 'InvalidModuleOptionsError';
  }
}

const TOP_LEVEL_OPTIONS: ReadonlySet<string> = new Set([
  'keyPrefix',
  'cursorSecret',
  'redis',
  'serviceName',
  'apiVersion',
  'eventTypes',
  'webhooks',
  'worker',
  'queuePrefix',
  'eventRetentionMs',
  'maxEventBytes',
  'rateLimit',
]);
const WEBHOOK_OPTIONS: ReadonlySet<string> = new Set([
  'timeoutMs',
  'retryScheduleMs',
  'allowInsecureUrls',
  'concurrency',
  'batchSize',
  'sweepIntervalMs',
  'disableAfterMs',
  'maxEndpoints',
]);
const RATE_LIMIT_OPTIONS: ReadonlySet<string> = new Set(['live', 'test', 'failedAuthentications']);
const FAILED_AUTHENTICATION_OPTIONS: ReadonlySet<string> = new Set(['limit', 'windowMs']);
const RESOURCE_OPTIONS: ReadonlySet<string> = new Set([
  'path',
  'entity',
  'object',
  'scope',
  'filters',
  'columns',
  'toJSON',
]);
const MIN_CURSOR_SECRET_LENGTH = 32;
/** The webhook user-agent's and the 401 challenge's name when the host gives none. */
export const DEFAULT_SERVICE_NAME = 'Interview';
const DEFAULT_EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;
/**
 * More is a mistake (a unit slip, say): some millennia back, the horizon is a time neither an event
 * id nor the databases can hold.
 */
const MAX_EVENT_RETENTION_MS = 100 * 365 * 24 * 3600 * 1000;
/**
 * A worker claims a batch in one statement, binding each id and four values more; SQLite binds at
 * most SQLITE_MAX_BOUND_VALUES in a statement, so a larger batch could never be claimed there.
 */
const MAX_BATCH_SIZE = SQLITE_MAX_BOUND_VALUES - 4;
/**
 * Receivers commonly refuse larger bodies (Express's JSON parser: 100 KiB by default), and a group
 * commit of 200 events, or a worker's claimed deliveries, multiply it.
 */
const MAX_EVENT_BYTES = 1024 * 1024;
/** Node fires a timer set for longer at once (after 1 ms), as if it were due. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The type columns of events and deliveries are varchar(128): a longer type could never be published. */
const MAX_EVENT_TYPE_LENGTH = 128;

/** The properties a resource's `columns` may rename. */
const RESOURCE_COLUMNS: ReadonlySet<string> = new Set(['id', 'accountId', 'livemode', 'createdAt']);
/** Paths under /v1 the module serves itself: a resource there would never be reached. */
const MODULE_PATHS: readonly string[] = ['events', 'webhook_endpoints', 'ping', 'me'];

function rejectUnknown(value: object, known: ReadonlySet<string>, path: string): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) throw new InvalidModuleOptionsError(`${path}${key}`, 'is not a known option.');
  }
}

function positiveInteger(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new InvalidModuleOptionsError(option, 'must be a positive integer.');
  }
  return value;
}

/** A positive integer of at most `max`; `limit` says what the most is, and why. */
function positiveIntegerAtMost(
  value: unknown,
  option: string,
  fallback: number,
  max: number,
  limit: string,
): number {
  const integer = positiveInteger(value, option, fallback);
  if (integer > max) throw new InvalidModuleOptionsError(option, `must be at most ${limit}.`);
  return integer;
}

/** A positive integer of milliseconds that a Node timer can wait for. */
function timerMs(value: unknown, option: string, fallback: number): number {
  return positiveIntegerAtMost(
    value,
    option,
    fallback,
    MAX_TIMER_MS,
    `${MAX_TIMER_MS} ms (about 24.8 days): Node fires a longer timer at once`,
  );
}

function resolveWebhooks(webhooks: WebhookOptions | undefined): Required<WebhookOptions> {
  const given = webhooks ?? {};
  rejectUnknown(given, WEBHOOK_OPTIONS, 'webhooks.');
  const schedule = given.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  // A delay beyond the longest retention is a unit slip, and one beyond a Date's range could never
  // be written as a delivery's next attempt.
  if (
    !Array.isArray(schedule) ||
    schedule.some((ms) => !Number.isInteger(ms) || ms < 0 || ms > MAX_EVENT_RETENTION_MS)
  ) {
    throw new InvalidModuleOptionsError(
      'webhooks.retryScheduleMs',
      'must be an array of non-negative integer delays of at most 100 years.',
    );
  }
  if (given.allowInsecureUrls !== undefined && typeof given.allowInsecureUrls !== 'boolean') {
    throw new InvalidModuleOptionsError('webhooks.allowInsecureUrls', 'must be a boolean.');
  }
  return {
    timeoutMs: timerMs(given.timeoutMs, 'webhooks.timeoutMs', 10_000),
    retryScheduleMs: [...schedule],
    allowInsecureUrls: given.allowInsecureUrls ?? false,
    concurrency: positiveInteger(given.concurrency, 'webhooks.concurrency', 50),
    batchSize: positiveIntegerAtMost(
      given.batchSize,
      'webhooks.batchSize',
      200,
      MAX_BATCH_SIZE,
      `${MAX_BATCH_SIZE} (a batch is claimed in one statement, and SQLite binds at most ${SQLITE_MAX_BOUND_VALUES} values in one)`,
    ),
    sweepIntervalMs: timerMs(given.sweepIntervalMs, 'webhooks.sweepIntervalMs', 30_000),
    disableAfterMs: positiveInteger(given.disableAfterMs, 'webhooks.disableAfterMs', 5 * 24 * 3600 * 1000),
    maxEndpoints: positiveInteger(given.maxEndpoints, 'webhooks.maxEndpoints', 100),
  };
}

function resolveRateLimit(rateLimit: RateLimitOptions | false | undefined): ResolvedRateLimit | false {
  if (rateLimit === false) return false;
  if (rateLimit !== undefined && (rateLimit === null || typeof rateLimit !== 'object')) {
    throw new InvalidModuleOptionsError(
      'rateLimit',
      'must be { live?, test?, failedAuthentications? } or false.',
    );
  }
  const given = rateLimit ?? {};
  rejectUnknown(given, RATE_LIMIT_OPTIONS, 'rateLimit.');
  return {
    live: positiveInteger(given.live, 'rateLimit.live', 100),
    test: positiveInteger(given.test, 'rateLimit.test', 25),
    failedAuthentications: resolveFailedAuthentications(given.failedAuthentications),
  };
}

function resolveFailedAuthentications(
  given: FailedAuthenticationLimit | false | undefined,
): Required<FailedAuthenticationLimit> | false {
  if (given === undefined || given === false) return false;
  const option = 'rateLimit.failedAuthentications';
  if (given === null || typeof given !== 'object') {
    throw new InvalidModuleOptionsError(option, 'must be { limit?, windowMs? } or false.');
  }
  rejectUnknown(given, FAILED_AUTHENTICATION_OPTIONS, `${option}.`);
  return {
    limit: positiveInteger(given.limit, `${option}.limit`, 100),
    windowMs: positiveInteger(given.windowMs, `${option}.windowMs`, 60_000),
  };
}

/** Host resources are given to forRoot/forRootAsync directly: they decide which routes exist. */
export function resolveResources(resources: ResourceDefinition[] | undefined): ResourceDefinition[] {
  if (resources === undefined) return [];
  if (!Array.isArray(resources)) throw new InvalidModuleOptionsError('resources', 'must be an array.');
  const paths = new Set<string>();
  resources.forEach((resource, index) => {
    const at = `resources[${index}].`;
    rejectUnknown(resource, RESOURCE_OPTIONS, at);
    if (typeof resource.path !== 'string' || !/^[a-z][a-z0-9_]*$/.test(resource.path)) {
      throw new InvalidModuleOptionsError(`${at}path`, 'must be a lowercase URL segment such as "sessions".');
    }
    if (paths.has(resource.path)) throw new InvalidModuleOptionsError(`${at}path`, 'is declared twice.');
    if (MODULE_PATHS.includes(resource.path)) {
      throw new InvalidModuleOptionsError(`${at}path`, `is a route of the module (/v1/${resource.path}).`);
    }
    paths.add(resource.path);
    if (typeof resource.entity !== 'function') {
      throw new InvalidModuleOptionsError(`${at}entity`, 'must be an entity class.');
    }
    if (typeof resource.object !== 'string' || resource.object.length === 0) {
      throw new InvalidModuleOptionsError(`${at}object`, 'must be a non-empty string.');
    }
    if (!isScope(resource.scope)) throw new InvalidModuleOptionsError(`${at}scope`, 'must be one of SCOPES.');
    const { filters, columns, toJSON } = resource as unknown as Partial<Record<string, unknown>>;
    if (filters !== undefined && !(Array.isArray(filters) && filters.every((f) => typeof f === 'string'))) {
      throw new InvalidModuleOptionsError(`${at}filters`, 'must be a list of entity property names.');
    }
    if (
      columns !== undefined &&
      (columns === null ||
        typeof columns !== 'object' ||
        Object.values(columns).some((c) => typeof c !== 'string'))
    ) {
      throw new InvalidModuleOptionsError(
        `${at}columns`,
        'must map id, accountId, livemode or createdAt to property names.',
      );
    }
    if (columns) rejectUnknown(columns as object, RESOURCE_COLUMNS, `${at}columns.`);
    if (toJSON !== undefined && typeof toJSON !== 'function') {
      throw new InvalidModuleOptionsError(`${at}toJSON`, 'must be a function.');
    }
  });
  return resources;
}

/** Validates the host's options at start-up so that a mistake fails the boot, naming the option. */
export function resolveOptions(options: InterviewApiModuleOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new InvalidModuleOptionsError('options', 'must be an object.');
  }
  if ('resources' in options) {
    throw new InvalidModuleOptionsError(
      'resources',
      'must be given to forRootAsync itself, not returned by useFactory.',
    );
  }
  rejectUnknown(options, TOP_LEVEL_OPTIONS, '');
  if (typeof options.keyPrefix !== 'string' || !/^[a-z][a-z0-9]{1,15}$/.test(options.keyPrefix)) {
    throw new InvalidModuleOptionsError(
      'keyPrefix',
      'must be 2 to 16 lowercase letters or digits, starting with a letter (keys look like <keyPrefix>_live_...).',
    );
  }
  if (typeof options.cursorSecret !== 'string' || options.cursorSecret.length < MIN_CURSOR_SECRET_LENGTH) {
    throw new InvalidModuleOptionsError(
      'cursorSecret',
      `must be a string of at least ${MIN_CURSOR_SECRET_LENGTH} characters (it signs list cursors).`,
    );
  }
  if (options.redis === null || typeof options.redis !== 'object') {
    throw new InvalidModuleOptionsError('redis', 'must be ioredis options or an ioredis instance.');
  }
  // The module opens connections of its own from the instance's options: a Cluster's are no
  // single server's, and would silently connect to localhost.
  if (isIoredisCluster(options.redis)) {
    throw new InvalidModuleOptionsError(
      'redis',
      'must be a single Redis server: a Cluster is not supported.',
    );
  }
  const redisOptions = isIoredisClient(options.redis) ? options.redis.options : options.redis;
  if (redisOptions.keyPrefix) {
    throw new InvalidModuleOptionsError(
      'redis.keyPrefix',
      'is not supported: BullMQ refuses ioredis key prefixes. Use the queuePrefix option instead.',
    );
  }
  const apiVersion = options.apiVersion ?? DEFAULT_API_VERSION;
  if (calendarDayYear(String(apiVersion)) === null) {
    throw new InvalidModuleOptionsError('apiVersion', 'must be a date in the form YYYY-MM-DD.');
  }
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  if (typeof serviceName !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(serviceName)) {
    throw new InvalidModuleOptionsError(
      'serviceName',
      'must be a token of letters, digits, ".", "_" or "-".',
    );
  }
  const hostTypes = options.eventTypes ?? [];
  if (
    !Array.isArray(hostTypes) ||
    hostTypes.some(
      (t) =>
        typeof t !== 'string' || t.length > MAX_EVENT_TYPE_LENGTH || !/^[a-z0-9_]+(\.[a-z0-9_]+)+$/.test(t),
    )
  ) {
    throw new InvalidModuleOptionsError(
      'eventTypes',
      `must be dotted lowercase names such as "session.completed", of at most ${MAX_EVENT_TYPE_LENGTH} characters.`,
    );
  }
  if (options.worker !== undefined && typeof options.worker !== 'boolean') {
    throw new InvalidModuleOptionsError('worker', 'must be a boolean.');
  }
  const queuePrefix = options.queuePrefix ?? 'interview-api';
  if (typeof queuePrefix !== 'string' || !/^[A-Za-z0-9_-]+$/.test(queuePrefix)) {
    throw new InvalidModuleOptionsError('queuePrefix', 'must be letters, digits, "_" or "-".');
  }
  return {
    keyPrefix: options.keyPrefix,
    cursorSecret: options.cursorSecret,
    redis: options.redis,
    serviceName,
    apiVersion,
    eventTypes: [...new Set([...BUILT_IN_EVENT_TYPES, ...hostTypes])],
    webhooks: resolveWebhooks(options.webhooks),
    worker: options.worker ?? true,
    queuePrefix,
    eventRetentionMs: positiveIntegerAtMost(
      options.eventRetentionMs,
      'eventRetentionMs',
      DEFAULT_EVENT_RETENTION_MS,
      MAX_EVENT_RETENTION_MS,
      `100 years (${MAX_EVENT_RETENTION_MS} ms)`,
    ),
    maxEventBytes: positiveIntegerAtMost(
      options.maxEventBytes,
      'maxEventBytes',
      256 * 1024,
      MAX_EVENT_BYTES,
      `${MAX_EVENT_BYTES} (1 MiB): concurrent publishes are written together, up to 200 in one statement, and a worker holds its claimed deliveries' bodies in memory`,
    ),
    rateLimit: resolveRateLimit(options.rateLimit),
  };
}
