const DAY_MS = 24 * 3_600_000;

/**
 * The one place each option's default is written, by its path as the README's table writes it; an
 * option without an entry is required, or an object whose fields have theirs. A test holds the README
 * and the `@default` tags to it. Imports nothing, so any folder may read a default.
 */
export const DEFAULT_OPTIONS = Object.freeze({
  serviceName: 'Interview',
  apiVersion: '2026-11-21',
  eventTypes: [],
  worker: true,
  queuePrefix: 'interview-api',
  eventRetentionMs: 30 * DAY_MS,
  maxEventBytes: 256 * 1024,
  dataSource: 'default',
  'webhooks.retryScheduleMs': [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  'webhooks.allowInsecureUrls': false,
  'webhooks.timeoutMs': 10_000,
  'webhooks.concurrency': 50,
  'webhooks.batchSize': 200,
  'webhooks.sweepIntervalMs': 30_000,
  'webhooks.disableAfterMs': 5 * DAY_MS,
  'webhooks.maxEndpoints': 100,
  'webhooks.secretEncryptionKeys': [],
  'rateLimit.live': 100,
  'rateLimit.test': 25,
  'rateLimit.failedAuthentications': false,
  'rateLimit.failedAuthentications.limit': 100,
  'rateLimit.failedAuthentications.windowMs': 60_000,
  resources: [],
  'resources.filters': [],
  'resources.columns': { id: 'id', accountId: 'accountId', livemode: 'livemode', createdAt: 'createdAt' },
} as const);
