import { type Type } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import type { Redis, RedisOptions } from 'ioredis';
import { isScope, type Scope } from './auth/scopes.js';
import { SQLITE_MAX_BOUND_VALUES } from './database/sql-dialect.js';
import { DEFAULT_OPTIONS } from './interview-api.defaults.js';
import { MAX_EVENTS_PER_WRITE } from './interview-api.tuning.js';
import { isIoredisClient, isIoredisCluster } from './redis/ioredis-client.js';
import { calendarDayYear } from './request/iso-timestamp.js';
import { ENCRYPTION_KEY_BYTES, EncryptionKey } from './secret-encryption/encryption-key.js';

// Each option is written once here, with its documentation, and once in the check tables below; its
// default is in DEFAULT_OPTIONS. The tables are typed from these interfaces, so an option added here
// fails to compile until it has a check and, if optional, a default.

/** The four properties the module relies on, which a resource's `columns` may rename. */
type ResourceColumn = 'id' | 'accountId' | 'livemode' | 'createdAt';

/**
 * A host entity exposed under /v1 (see the README, "Host resources"): its `filters` and `columns`
 * name properties of T, so that a typo fails to compile rather than the boot.
 */
export interface ResourceDefinitionOf<T extends object> {
  /**
   * URL segment: `GET /v1/<path>` and `GET /v1/<path>/:id`. Lowercase letters, digits and `_`,
   * starting with a letter; not one of the module's own (`events`, `webhook_endpoints`, `ping`,
   * `me`), nor another resource's. Required.
   */
  path: string;
  /** The TypeORM entity class listed; it must be one of the host's DataSource entities. Required. */
  entity: Type<T>;
  /** The `object` value of each item, e.g. `session`. A non-empty string. Required. */
  object: string;
  /** The scope an API key needs for the resource's list and retrieve routes. Required. */
  scope: Scope;
  /**
   * Entity properties clients may filter on with `?<snake_case>=value`, each a column of a type a
   * query string can carry (text, numbers, boolean, timestamp, date, uuid, enum).
   * @default []
   */
  filters?: (keyof T & string)[];
  /**
   * Renames of the four properties the module relies on, for an entity whose own are named
   * otherwise; each names an entity property.
   * @default { id: 'id', accountId: 'accountId', livemode: 'livemode', createdAt: 'createdAt' }
   */
  columns?: Partial<Record<ResourceColumn, keyof T & string>>;
  /**
   * The public shape of one item, `id` and `object` set over it by the module. By default the fields
   * class-transformer keeps (no `@Exclude()`d one), in snake_case. A method, so that a
   * `ResourceDefinition<Session>` is one of the `resources` forRoot takes.
   */
  toJSON?(row: T): Record<string, unknown>;
  /**
   * The OpenAPI schema of one item (a JSON Schema object), for the OpenAPI document; `id` and
   * `object` are set over it by the module. By default the entity's columns in snake_case, as listed
   * without `toJSON`; with a `toJSON`, give it, or the document says only that items are objects.
   */
  schema?: SchemaObject;
}

/**
 * A resource definition whose entity type is not known here (a list of several): its names are
 * checked against the entity's columns at boot. Every `ResourceDefinitionOf<T>` is one.
 */
export interface AnyResourceDefinition extends Omit<ResourceDefinitionOf<object>, 'filters' | 'columns'> {
  /** As ResourceDefinitionOf's, any entity property's name. */
  filters?: string[];
  /** As ResourceDefinitionOf's, any entity property's name. */
  columns?: Partial<Record<ResourceColumn, string>>;
}

/**
 * `ResourceDefinition<Session>` checks its names against Session's properties; a bare
 * `ResourceDefinition` is any resource's. Two types rather than one generic interface: TypeScript
 * compares two instances of one interface by their type arguments alone, and would not take a
 * `ResourceDefinition<Session>` where a bare one is expected.
 */
export type ResourceDefinition<T extends object = object> = object extends T
  ? AnyResourceDefinition
  : ResourceDefinitionOf<T>;

/** How webhooks are sent, retried and recorded. */
export interface WebhookOptions {
  /**
   * Delays before attempts 2, 3, ..., in milliseconds (the first runs at once), each 0 to 100 years and
   * jittered by up to 20 % either way; a delivery fails for good after the last.
   * @default [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]
   */
  retryScheduleMs?: number[];
  /**
   * Development and tests only: allows `http://` URLs and private or loopback targets, which are
   * refused otherwise.
   * @default false
   */
  allowInsecureUrls?: boolean;
  /**
   * Total time budget of one attempt in milliseconds: DNS, connect, TLS, headers and body. At most
   * 2³¹−1 (about 24.8 days), the longest timer Node keeps.
   * @default 10_000
   */
  timeoutMs?: number;
  /**
   * Sends in flight per worker process, shared fairly between accounts and endpoints. A worker
   * holds at most 16 times as many claimed deliveries, or one `batchSize` when that is more.
   * @default 50
   */
  concurrency?: number;
  /**
   * Deliveries per queue job, and the most outcomes recorded in one statement. At most 32,762: a
   * batch is claimed in one statement, and SQLite binds at most 32,766 values in one.
   * @default 200
   */
  batchSize?: number;
  /**
   * How often, in milliseconds, a worker looks for due deliveries no queue job carries (Redis
   * flushed or away) and queues them again. At most 2³¹−1.
   * @default 30_000
   */
  sweepIntervalMs?: number;
  /**
   * How long, in milliseconds, an endpoint may fail every attempt before it is disabled.
   * @default 432_000_000 (5 days)
   */
  disableAfterMs?: number;
  /**
   * Webhook endpoints one account may have in each mode (every event fans out to all of them); one
   * more is refused with 409 `conflict`.
   * @default 100
   */
  maxEndpoints?: number;
  /**
   * Keys that endpoints' signing secrets (and kept idempotent answers) are stored encrypted with,
   * AES-256-GCM: each 32 bytes, a Buffer or its base64 text. The first encrypts and all decrypt, so
   * a key is rotated by putting a new one first; at start, stored values are encrypted under the
   * first. Without keys, secrets are stored as plaintext.
   * @default [] (none: secrets are stored as plaintext)
   */
  secretEncryptionKeys?: Array<Buffer | string>;
}

/**
 * Failed authentications one client address may make (by `request.ip`, so behind a proxy set
 * Express's `trust proxy`); past them its requests are refused until the window ends.
 */
export interface FailedAuthenticationLimit {
  /**
   * Requests with an unknown or revoked key an address may make in a window before all its requests
   * get 429.
   * @default 100
   */
  limit?: number;
  /**
   * The window in milliseconds, from the address's first failure in it.
   * @default 60_000
   */
  windowMs?: number;
}

/** Requests per second an API key may make, per mode; a key's bucket holds one second's worth. */
export interface RateLimitOptions {
  /**
   * Requests per second for a live key, as Stripe allows one.
   * @default 100
   */
  live?: number;
  /**
   * Requests per second for a test key, as Stripe allows one.
   * @default 25
   */
  test?: number;
  /**
   * A limit per client address on requests with an unknown or revoked key; `{}` turns it on with
   * its fields' defaults, `false` leaves it off.
   * @default false
   */
  failedAuthentications?: FailedAuthenticationLimit | false;
}

/**
 * What forRoot and a forRootAsync factory take (besides `resources`, and `dataSource` in a factory,
 * given to forRootAsync itself).
 */
export interface InterviewApiModuleOptions {
  /**
   * The prefix of every API key: 2 to 16 lowercase letters or digits, the first a letter. Keys look
   * like `<keyPrefix>_test_...` and `<keyPrefix>_live_...`. Required.
   */
  keyPrefix: string;
  /**
   * At least 32 characters: the secret list cursors are signed with (by a key derived from it), so
   * that a client cannot forge one. Required.
   */
  cursorSecret: string;
  /**
   * ioredis options, or an ioredis instance whose options the module opens its own connections
   * from. One server, not a Cluster, and no `keyPrefix` (BullMQ refuses one: use `queuePrefix`).
   * Required.
   */
  redis: RedisOptions | Redis;
  /**
   * Letters, digits, `.`, `_` or `-`: the webhook user-agent is `<serviceName>-Webhooks/1.0`, and the
   * realm of a 401's `WWW-Authenticate` is this.
   * @default 'Interview'
   */
  serviceName?: string;
  /**
   * A date `YYYY-MM-DD`, stamped on every event as its `api_version`.
   * @default '2026-11-21'
   */
  apiVersion?: string;
  /**
   * The host's event types, on top of `result.ready`, `result.updated` and `webhook.test`: dotted
   * lowercase names such as `session.completed`, of at most 128 characters.
   * @default []
   */
  eventTypes?: string[];
  /**
   * Whether this process sends webhooks: `false` serves the API and publishes events, and leaves the
   * sending to other processes.
   * @default true
   */
  worker?: boolean;
  /**
   * Letters, digits, `_` or `-`: the prefix of the module's keys in Redis (rate limits, and the
   * queue, under `<queuePrefix>:<installation id>:`).
   * @default 'interview-api'
   */
  queuePrefix?: string;
  /**
   * Age in milliseconds after which events are hidden, and purged hourly with their deliveries. At
   * most 100 years.
   * @default 2_592_000_000 (30 days)
   */
  eventRetentionMs?: number;
  /**
   * The largest event `publish` takes, in bytes of its JSON. At most 1 MiB (1,048,576).
   * @default 262_144 (256 KiB)
   */
  maxEventBytes?: number;
  /** The delivery settings, each optional. */
  webhooks?: WebhookOptions;
  /**
   * Per-key request rates on /v1, shared by every process on the Redis; `false` turns every limit
   * off.
   * @default { live: 100, test: 25, failedAuthentications: false }
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * The name the host gave `TypeOrmModule.forRoot({ name })` of the DataSource that holds the
   * module's tables (list its migrations there) and the `resources`' rows. Given to `forRoot`, or to
   * `forRootAsync` itself, not returned by its factory: the entities are registered with the
   * DataSource as the module is built.
   * @default 'default' (the default DataSource)
   */
  dataSource?: string;
}

/** The rate limits after validation, with every default filled in. */
export interface ResolvedRateLimit extends Required<Omit<RateLimitOptions, 'failedAuthentications'>> {
  failedAuthentications: Required<FailedAuthenticationLimit> | false;
}

/** The delivery settings after validation, with every default filled in. */
export interface ResolvedWebhookOptions extends Required<Omit<WebhookOptions, 'secretEncryptionKeys'>> {
  /** None when secrets are stored as plaintext. */
  secretEncryptionKeys: readonly EncryptionKey[];
}

/** The options after validation, with every default filled in. */
export interface ResolvedOptions extends Required<
  Omit<InterviewApiModuleOptions, 'eventTypes' | 'webhooks' | 'rateLimit'>
> {
  /** The built-in event types, then the host's. */
  eventTypes: readonly string[];
  webhooks: ResolvedWebhookOptions;
  rateLimit: ResolvedRateLimit | false;
}

export const BUILT_IN_EVENT_TYPES = ['result.ready', 'result.updated', 'webhook.test'] as const;

export class InvalidModuleOptionsError extends Error {
  constructor(option: string, problem: string) {
    super(`InterviewApiModule option "${option}" ${problem}`);
    this.name = 'InvalidModuleOptionsError';
  }
}

/** The optional fields of T. */
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/** What a default of type V may be: arrays are read-only in DEFAULT_OPTIONS. */
type DefaultOf<V> = V extends readonly (infer E)[] ? readonly E[] : V;

/**
 * The defaults of T's optional fields, by their paths under `Prefix`; `Without` are the fields that
 * have none of their own (objects of options whose fields have theirs, or a behaviour).
 */
type DefaultsOf<T, Prefix extends string, Without extends keyof T = never> = {
  readonly [K in Exclude<OptionalKeys<T>, Without> & string as `${Prefix}${K}`]-?: DefaultOf<
    Exclude<T[K], undefined>
  >;
};

/** Every default DEFAULT_OPTIONS must hold: an optional option added without one fails to compile. */
type OptionDefaults = DefaultsOf<InterviewApiModuleOptions, '', 'webhooks' | 'rateLimit'> &
  DefaultsOf<WebhookOptions, 'webhooks.'> &
  DefaultsOf<RateLimitOptions, 'rateLimit.'> &
  DefaultsOf<FailedAuthenticationLimit, 'rateLimit.failedAuthentications.'> &
  // toJSON's and schema's defaults are behaviours (toResourceView, resourceItemSchema), not values.
  DefaultsOf<ResourceDefinition, 'resources.', 'toJSON' | 'schema'> & {
    readonly resources: readonly ResourceDefinition[];
  };

const DEFAULTS: OptionDefaults = DEFAULT_OPTIONS;

/**
 * Checks one option and returns it resolved, or throws InvalidModuleOptionsError naming `option`.
 * `value` is the option as given, or its default when it is absent (undefined); `fallback` is its
 * default either way, for the options that take null as absent too.
 */
type OptionCheck<R> = (value: unknown, option: string, fallback: unknown) => R;

/** A check of each field of an object of options, in the order they are checked. */
type OptionChecks<Given, Resolved extends Record<keyof Given, unknown>> = {
  readonly [K in keyof Given]-?: OptionCheck<Resolved[K]>;
};

/** Checks one field of a resource definition; `paths` are those of the resources before it. */
type ResourceCheck = (value: unknown, option: string, paths: Set<string>) => void;

const MIN_CURSOR_SECRET_LENGTH = 32;
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
 * commit of MAX_EVENTS_PER_WRITE events, or a worker's claimed deliveries, multiply it.
 */
const MAX_EVENT_BYTES = 1024 * 1024;
/** Node fires a timer set for longer at once (after 1 ms), as if it were due. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The type columns of events and deliveries are varchar(128): a longer type could never be published. */
const MAX_EVENT_TYPE_LENGTH = 128;
/** Paths under /v1 the module serves itself: a resource there would never be reached. */
const MODULE_PATHS: readonly string[] = ['events', 'webhook_endpoints', 'ping', 'me'];

/** Edits (insertions, deletions, substitutions) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The known option an unknown `key` was likely meant to be: the closest within two edits, case
 * aside, keeping at least one of its letters; null when none is that close.
 */
function closestKnown(key: string, known: readonly string[]): string | null {
  let closest: string | null = null;
  let closestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < closestDistance && distance < key.length) {
      closest = candidate;
      closestDistance = distance;
    }
  }
  return closest;
}

/** Refuses a key of `value` that is no key of `checks` (a table, or any object of the known keys). */
function rejectUnknown(value: object, checks: object, path: string): void {
  const known = Object.keys(checks);
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const closest = closestKnown(key, known);
    const hint = closest === null ? '' : ` Did you mean "${path}${closest}"?`;
    throw new InvalidModuleOptionsError(`${path}${key}`, `is not a known option.${hint}`);
  }
}

/** Checks each field of `given` with its row of `checks`, in the table's order, after unknown keys. */
function checkFields<Given, Resolved extends Record<keyof Given, unknown>>(
  given: unknown,
  checks: OptionChecks<Given, Resolved>,
  path: string,
): Resolved {
  rejectUnknown(Object(given), checks, path);
  const fields = given as Record<string, unknown>;
  const defaults: Readonly<Record<string, unknown>> = DEFAULTS;
  const resolved: Record<string, unknown> = {};
  for (const [key, check] of Object.entries<OptionCheck<unknown>>(checks)) {
    const fallback = defaults[`${path}${key}`];
    resolved[key] = check(fields[key] === undefined ? fallback : fields[key], `${path}${key}`, fallback);
  }
  return resolved as Resolved;
}

function positiveInteger(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new InvalidModuleOptionsError(option, 'must be a positive integer.');
  }
  return value;
}

/** A check of a positive integer of at most `max`; `limit` says what the most is, and why. */
function positiveIntegerAtMost(max: number, limit: string): OptionCheck<number> {
  return (value, option) => {
    const integer = positiveInteger(value, option);
    if (integer > max) throw new InvalidModuleOptionsError(option, `must be at most ${limit}.`);
    return integer;
  };
}

/** A positive integer of milliseconds that a Node timer can wait for. */
const timerMs = positiveIntegerAtMost(
  MAX_TIMER_MS,
  `${MAX_TIMER_MS} ms (about 24.8 days): Node fires a longer timer at once`,
);

function boolean(value: unknown, option: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidModuleOptionsError(option, 'must be a boolean.');
  return value;
}

/** Standard base64 with its padding, as a 32-byte key's text is written (44 characters). */
const KEY_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** One key of `secretEncryptionKeys`; the error names its place, never its material. */
function encryptionKey(value: unknown, option: string): EncryptionKey {
  const problem = `must be ${ENCRYPTION_KEY_BYTES} bytes: a Buffer, or its base64 text.`;
  let material: Buffer;
  if (Buffer.isBuffer(value)) material = value;
  else if (typeof value === 'string' && KEY_BASE64.test(value)) material = Buffer.from(value, 'base64');
  else throw new InvalidModuleOptionsError(option, problem);
  if (material.length !== ENCRYPTION_KEY_BYTES) throw new InvalidModuleOptionsError(option, problem);
  return new EncryptionKey(material);
}

/**
 * The keys, absent when `value` is the default itself. A list given empty is refused: it is likelier
 * a key's setting that came out empty than a wish to store secrets as plaintext.
 */
const encryptionKeys: OptionCheck<readonly EncryptionKey[]> = (value, option, fallback) => {
  if (value === fallback) return [];
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidModuleOptionsError(
      option,
      `must be a non-empty array of ${ENCRYPTION_KEY_BYTES}-byte keys (Buffers or their base64 text), the one that encrypts first.`,
    );
  }
  const keys = value.map((key, index) => encryptionKey(key, `${option}[${index}]`));
  keys.forEach((key, index) => {
    const first = keys.findIndex((other) => other.id === key.id);
    if (first !== index)
      throw new InvalidModuleOptionsError(`${option}[${index}]`, `is the key of [${first}] again.`);
  });
  return keys;
};

const FAILED_AUTHENTICATION_CHECKS: OptionChecks<
  FailedAuthenticationLimit,
  Required<FailedAuthenticationLimit>
> = {
  limit: positiveInteger,
  windowMs: positiveInteger,
};

const RATE_LIMIT_CHECKS: OptionChecks<RateLimitOptions, ResolvedRateLimit> = {
  live: positiveInteger,
  test: positiveInteger,
  failedAuthentications: (value, option) => {
    if (value === false) return false;
    if (value === null || typeof value !== 'object') {
      throw new InvalidModuleOptionsError(option, 'must be { limit?, windowMs? } or false.');
    }
    return checkFields(value, FAILED_AUTHENTICATION_CHECKS, `${option}.`);
  },
};

const WEBHOOK_CHECKS: OptionChecks<WebhookOptions, ResolvedWebhookOptions> = {
  retryScheduleMs: (value, option, fallback) => {
    const schedule = value ?? fallback;
    // A delay beyond the longest retention is a unit slip, and one beyond a Date's range could never
    // be written as a delivery's next attempt.
    if (
      !Array.isArray(schedule) ||
      schedule.some((ms) => !Number.isInteger(ms) || ms < 0 || ms > MAX_EVENT_RETENTION_MS)
    ) {
      throw new InvalidModuleOptionsError(
        option,
        'must be an array of non-negative integer delays of at most 100 years.',
      );
    }
    return [...(schedule as number[])];
  },
  allowInsecureUrls: boolean,
  timeoutMs: timerMs,
  concurrency: positiveInteger,
  batchSize: positiveIntegerAtMost(
    MAX_BATCH_SIZE,
    `${MAX_BATCH_SIZE} (a batch is claimed in one statement, and SQLite binds at most ${SQLITE_MAX_BOUND_VALUES} values in one)`,
  ),
  sweepIntervalMs: timerMs,
  disableAfterMs: positiveInteger,
  maxEndpoints: positiveInteger,
  secretEncryptionKeys: encryptionKeys,
};

const OPTION_CHECKS: OptionChecks<InterviewApiModuleOptions, ResolvedOptions> = {
  keyPrefix: (value, option) => {
    if (typeof value !== 'string' || !/^[a-z][a-z0-9]{1,15}$/.test(value)) {
      throw new InvalidModuleOptionsError(
        option,
        'must be 2 to 16 lowercase letters or digits, starting with a letter (keys look like <keyPrefix>_live_...).',
      );
    }
    return value;
  },
  cursorSecret: (value, option) => {
    if (typeof value !== 'string' || value.length < MIN_CURSOR_SECRET_LENGTH) {
      throw new InvalidModuleOptionsError(
        option,
        `must be a string of at least ${MIN_CURSOR_SECRET_LENGTH} characters (it signs list cursors).`,
      );
    }
    return value;
  },
  redis: (value, option) => {
    if (value === null || typeof value !== 'object') {
      throw new InvalidModuleOptionsError(option, 'must be ioredis options or an ioredis instance.');
    }
    // The module opens connections of its own from the instance's options: a Cluster's are no
    // single server's, and would silently connect to localhost.
    if (isIoredisCluster(value)) {
      throw new InvalidModuleOptionsError(
        option,
        'must be a single Redis server: a Cluster is not supported.',
      );
    }
    const redis = value as RedisOptions | Redis;
    const redisOptions = isIoredisClient(redis) ? redis.options : redis;
    if (redisOptions.keyPrefix) {
      throw new InvalidModuleOptionsError(
        `${option}.keyPrefix`,
        'is not supported: BullMQ refuses ioredis key prefixes. Use the queuePrefix option instead.',
      );
    }
    return redis;
  },
  apiVersion: (value, option, fallback) => {
    const apiVersion = value ?? fallback;
    if (calendarDayYear(String(apiVersion)) === null) {
      throw new InvalidModuleOptionsError(option, 'must be a date in the form YYYY-MM-DD.');
    }
    return apiVersion as string;
  },
  serviceName: (value, option, fallback) => {
    const serviceName = value ?? fallback;
    if (typeof serviceName !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(serviceName)) {
      throw new InvalidModuleOptionsError(option, 'must be a token of letters, digits, ".", "_" or "-".');
    }
    return serviceName;
  },
  eventTypes: (value, option, fallback) => {
    const hostTypes = value ?? fallback;
    if (
      !Array.isArray(hostTypes) ||
      hostTypes.some(
        (t) =>
          typeof t !== 'string' || t.length > MAX_EVENT_TYPE_LENGTH || !/^[a-z0-9_]+(\.[a-z0-9_]+)+$/.test(t),
      )
    ) {
      throw new InvalidModuleOptionsError(
        option,
        `must be dotted lowercase names such as "session.completed", of at most ${MAX_EVENT_TYPE_LENGTH} characters.`,
      );
    }
    return [...new Set<string>([...BUILT_IN_EVENT_TYPES, ...(hostTypes as string[])])];
  },
  worker: boolean,
  queuePrefix: (value, option, fallback) => {
    const queuePrefix = value ?? fallback;
    if (typeof queuePrefix !== 'string' || !/^[A-Za-z0-9_-]+$/.test(queuePrefix)) {
      throw new InvalidModuleOptionsError(option, 'must be letters, digits, "_" or "-".');
    }
    return queuePrefix;
  },
  webhooks: (value, option) => checkFields(value ?? {}, WEBHOOK_CHECKS, `${option}.`),
  eventRetentionMs: positiveIntegerAtMost(MAX_EVENT_RETENTION_MS, `100 years (${MAX_EVENT_RETENTION_MS} ms)`),
  maxEventBytes: positiveIntegerAtMost(
    MAX_EVENT_BYTES,
    `${MAX_EVENT_BYTES} (1 MiB): concurrent publishes are written together, up to ${MAX_EVENTS_PER_WRITE} in one statement, and a worker holds its claimed deliveries' bodies in memory`,
  ),
  dataSource: (value, option) => {
    if (typeof value !== 'string' || value.length === 0) {
      throw new InvalidModuleOptionsError(
        option,
        'must be the name of a DataSource, as given to TypeOrmModule.forRoot({ name }).',
      );
    }
    return value;
  },
  rateLimit: (value, option) => {
    if (value === false) return false;
    if (value !== undefined && (value === null || typeof value !== 'object')) {
      throw new InvalidModuleOptionsError(
        option,
        'must be { live?, test?, failedAuthentications? } or false.',
      );
    }
    return checkFields(value ?? {}, RATE_LIMIT_CHECKS, `${option}.`);
  },
};

/** The properties a resource's `columns` may rename. */
const RESOURCE_COLUMNS: { readonly [K in ResourceColumn]: true } = {
  id: true,
  accountId: true,
  livemode: true,
  createdAt: true,
};

const RESOURCE_CHECKS: { readonly [K in keyof ResourceDefinition]-?: ResourceCheck } = {
  path: (value, option, paths) => {
    if (typeof value !== 'string' || !/^[a-z][a-z0-9_]*$/.test(value)) {
      throw new InvalidModuleOptionsError(option, 'must be a lowercase URL segment such as "sessions".');
    }
    if (paths.has(value)) throw new InvalidModuleOptionsError(option, 'is declared twice.');
    if (MODULE_PATHS.includes(value)) {
      throw new InvalidModuleOptionsError(option, `is a route of the module (/v1/${value}).`);
    }
    paths.add(value);
  },
  entity: (value, option) => {
    if (typeof value !== 'function') throw new InvalidModuleOptionsError(option, 'must be an entity class.');
  },
  object: (value, option) => {
    if (typeof value !== 'string' || value.length === 0) {
      throw new InvalidModuleOptionsError(option, 'must be a non-empty string.');
    }
  },
  scope: (value, option) => {
    if (!isScope(value)) throw new InvalidModuleOptionsError(option, 'must be one of SCOPES.');
  },
  filters: (value, option) => {
    if (value !== undefined && !(Array.isArray(value) && value.every((f) => typeof f === 'string'))) {
      throw new InvalidModuleOptionsError(option, 'must be a list of entity property names.');
    }
  },
  columns: (value, option) => {
    if (value === undefined) return;
    if (
      value === null ||
      typeof value !== 'object' ||
      Object.values(value).some((c) => typeof c !== 'string')
    ) {
      throw new InvalidModuleOptionsError(
        option,
        'must map id, accountId, livemode or createdAt to property names.',
      );
    }
    rejectUnknown(value, RESOURCE_COLUMNS, `${option}.`);
  },
  toJSON: (value, option) => {
    if (value !== undefined && typeof value !== 'function') {
      throw new InvalidModuleOptionsError(option, 'must be a function.');
    }
  },
  schema: (value, option) => {
    if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new InvalidModuleOptionsError(option, 'must be an OpenAPI schema object.');
    }
  },
};

/**
 * The check tables by the path of the object of options they check (`''` for the options
 * themselves, `resources` for each resource definition): what the module accepts, for its tests.
 */
export const OPTION_CHECK_TABLES: Readonly<Record<string, object>> = {
  '': OPTION_CHECKS,
  webhooks: WEBHOOK_CHECKS,
  rateLimit: RATE_LIMIT_CHECKS,
  'rateLimit.failedAuthentications': FAILED_AUTHENTICATION_CHECKS,
  resources: RESOURCE_CHECKS,
};

/** Host resources are given to forRoot/forRootAsync directly: they decide which routes exist. */
export function resolveResources(
  resources: readonly ResourceDefinition[] | undefined,
): readonly ResourceDefinition[] {
  if (resources === undefined) return DEFAULTS.resources;
  if (!Array.isArray(resources)) throw new InvalidModuleOptionsError('resources', 'must be an array.');
  const paths = new Set<string>();
  resources.forEach((resource, index) => {
    const at = `resources[${index}].`;
    rejectUnknown(resource, RESOURCE_CHECKS, at);
    const fields = resource as unknown as Record<string, unknown>;
    for (const [key, check] of Object.entries<ResourceCheck>(RESOURCE_CHECKS))
      check(fields[key], `${at}${key}`, paths);
  });
  return resources;
}

/**
 * The DataSource's name given to forRoot or forRootAsync, checked as the module is built: its
 * entities are registered with that DataSource then.
 */
export function resolveDataSource(dataSource: string | undefined): string {
  return OPTION_CHECKS.dataSource(dataSource ?? DEFAULTS.dataSource, 'dataSource', DEFAULTS.dataSource);
}

/** The options a forRootAsync factory may not return: they shape the module before it runs. */
const BUILD_TIME_OPTIONS: readonly string[] = ['resources', 'dataSource'];

/**
 * Validates the host's options at start-up so that a mistake fails the boot, naming the option.
 * `dataSource` is the one given to forRoot or forRootAsync (resolveDataSource), which `options`,
 * the module options without it, never hold unless a forRootAsync factory returned it.
 */
export function resolveOptions(
  options: InterviewApiModuleOptions,
  dataSource: string = DEFAULTS.dataSource,
): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new InvalidModuleOptionsError('options', 'must be an object.');
  }
  const returned = BUILD_TIME_OPTIONS.find((option) => option in options);
  if (returned !== undefined) {
    throw new InvalidModuleOptionsError(
      returned,
      'must be given to forRootAsync itself, not returned by useFactory.',
    );
  }
  return checkFields({ ...options, dataSource }, OPTION_CHECKS, '');
}
