import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisOptions } from 'ioredis';
import { SCOPES, type Scope } from '../lib/index.js';

/** Everything the demo reads from the environment, with defaults that run on a laptop as is. */
export interface DemoConfig {
  /** The address the demo listens on: loopback, since its Developers page has no login. */
  host: string;
  port: number;
  /** The SQLite file of the demo (created on first start). */
  databaseFile: string;
  redis: RedisOptions;
  /** The prefix of the demo's BullMQ keys, so that two demos can share one Redis. */
  queuePrefix: string;
  cursorSecret: string;
  /** Keys look like `<keyPrefix>_test_...` and `<keyPrefix>_live_...`. */
  keyPrefix: string;
  /** The one account the Developers page acts for (a real host takes it from its session). */
  accountId: string;
  /** The scopes of the signed-in demo user: a key can get at most these. */
  userScopes: Scope[];
  /** Where the built-in receiver listens, as an endpoint URL. */
  receiverUrl: string;
  /** Host headers the Developers page answers besides its loopback names (`host:port`, lower case). */
  extraDashboardHosts: string[];
}

export const DEMO_CONFIG = Symbol('DEMO_CONFIG');

/** A development-only default; set CURSOR_SECRET anywhere that matters. */
const DEV_CURSOR_SECRET = 'interview-demo-dev-cursor-secret-change-me-0123456789';

/** The repository root, whether this file runs compiled (.demo-build/sample-app) or from source. */
export function repositoryRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const parent = resolve(here, '..');
  return parent.endsWith('.demo-build') ? resolve(parent, '..') : parent;
}

function redisFromEnv(env: NodeJS.ProcessEnv): RedisOptions {
  if (env.REDIS_URL) {
    const url = new URL(env.REDIS_URL);
    return {
      host: url.hostname || '127.0.0.1',
      port: url.port ? Number(url.port) : 6379,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    };
  }
  return { host: env.REDIS_HOST ?? '127.0.0.1', port: Number(env.REDIS_PORT ?? 6379) };
}

/** Where this process can reach itself when listening on `host`: a wildcard's loopback. */
function reachableAt(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export function loadDemoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  // DEMO_HOST rather than HOST, which some shells set to the machine's name.
  const host = env.DEMO_HOST ?? '127.0.0.1';
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(`PORT is not a port: ${env.PORT}`);
  const root = repositoryRoot();
  const file = env.DEMO_DB ?? 'sample-app/.data/interview-demo.sqlite';
  const databaseFile = isAbsolute(file) ? file : resolve(root, file);
  mkdirSync(dirname(databaseFile), { recursive: true });
  return {
    host,
    port,
    databaseFile,
    redis: redisFromEnv(env),
    queuePrefix: env.DEMO_QUEUE_PREFIX ?? 'interview-demo',
    cursorSecret: env.CURSOR_SECRET ?? DEV_CURSOR_SECRET,
    keyPrefix: 'iv',
    accountId: env.DEMO_ACCOUNT_ID ?? 'acct_demo',
    userScopes: [...SCOPES],
    receiverUrl: `http://${reachableAt(host)}:${port}/demo-receiver`,
    extraDashboardHosts: (env.DEMO_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter((entry) => entry !== ''),
  };
}

/**
 * The demo lets endpoints use http:// and loopback URLs, such as its own receiver, in both modes;
 * the Developers page says so next to the URL field, since a production host refuses them.
 */
export const DEMO_ALLOWS_INSECURE_URLS = true;

/** The host's own event types, registered with the module's `eventTypes` option. */
export const HOST_EVENT_TYPES = ['session.started', 'session.completed'];
