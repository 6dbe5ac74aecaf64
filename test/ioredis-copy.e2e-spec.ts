import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  type InterviewApiModuleOptions,
  InvalidModuleOptionsError,
  resolveOptions,
} from '../lib/interview-api.options.js';
import { createTestHost, CURSOR_SECRET } from './support/host-app.js';
import { type IoredisCopy, loadIoredisCopy } from './support/ioredis-copy.js';
import { eventually } from './support/receiver.js';
import { REDIS } from './support/webhooks.js';

/** A database of the shared Redis that no other test uses: the host's client selects it. */
const COPY_DB = 7;

/** The connections Redis holds under `name`, with the database each has selected. */
async function connectionsNamed(name: string): Promise<{ db: number }[]> {
  const admin = new Redis({ ...REDIS, lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  try {
    const list = (await admin.client('LIST')) as string;
    return list
      .split('\n')
      .map((line) => new Map(line.split(' ').map((field) => field.split('=', 2) as [string, string])))
      .filter((fields) => fields.get('name') === name)
      .map((fields) => ({ db: Number(fields.get('db')) }));
  } finally {
    admin.disconnect();
  }
}

/** `use` run on a connection of its own to COPY_DB. */
async function inCopyDb<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ ...REDIS, db: COPY_DB, lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * `redis` (README, Options) may be the host's ioredis client, also one of another copy of
 * ioredis than the module's (a host's own node_modules/ioredis, of another version or nested by
 * npm), which `instanceof` does not recognise.
 */
describe("a host's ioredis client from another copy of ioredis", () => {
  let copy: IoredisCopy;

  beforeAll(() => {
    copy = loadIoredisCopy();
  });
  afterAll(() => {
    copy.remove();
  });

  it("has the module's connections go where it points, with its options", async () => {
    const connectionName = `iv_copy_${randomBytes(6).toString('hex')}`;
    const client = new copy.ioredis.Redis({ ...REDIS, db: COPY_DB, connectionName, lazyConnect: true });
    expect(client).not.toBeInstanceOf(Redis);
    const host = await createTestHost({ module: { redis: client } });
    try {
      const connections = await eventually(async () => {
        const named = await connectionsNamed(connectionName);
        return named.length > 0 && named;
      });
      expect(connections.every((connection) => connection.db === COPY_DB)).toBe(true);
      // The queue's keys: the test host's queuePrefix is its database's name.
      await eventually(async () => (await inCopyDb((redis) => redis.keys(`${host.db.name}:*`))).length > 0);
    } finally {
      await host.close();
      await inCopyDb(async (redis) => {
        const keys = await redis.keys(`${host.db.name}:*`);
        if (keys.length > 0) await redis.del(...keys);
      });
      client.disconnect();
    }
  });

  describe('is checked at start-up as one of its own', () => {
    /** resolveOptions is the module's start-up check: a boot fails with its error, naming the option. */
    const expectRefused = (redis: object, option: string): void => {
      const check = (): unknown =>
        resolveOptions({
          keyPrefix: 'iv',
          cursorSecret: CURSOR_SECRET,
          redis: redis as InterviewApiModuleOptions['redis'],
        });
      expect(check).toThrow(InvalidModuleOptionsError);
      expect(check).toThrow(`option "${option}"`);
    };

    it('refuses a Cluster', () => {
      const cluster = new copy.ioredis.Cluster([REDIS], { lazyConnect: true });
      expectRefused(cluster, 'redis');
      cluster.disconnect();
    });

    it('refuses a client with a keyPrefix', () => {
      const client = new copy.ioredis.Redis({ ...REDIS, keyPrefix: 'app:', lazyConnect: true });
      expectRefused(client, 'redis.keyPrefix');
      client.disconnect();
    });
  });
});
