import { EventEmitter } from 'node:events';
import type { HttpAdapterHost } from '@nestjs/core';
import { resolveOptions } from '../interview-api.options.js';
import { RateLimiter } from './rate-limiter.js';

/** A Redis connection still being made, as at a process's start: it becomes ready when told. */
class ConnectingRedis extends EventEmitter {
  status = 'connecting';
  readonly values = new Map<string, string>();

  async set(key: string, value: string): Promise<'OK'> {
    this.values.set(key, value);
    return 'OK';
  }

  becomeReady(): void {
    this.status = 'ready';
    this.emit('ready');
  }
}

function limiterOn(connection: ConnectingRedis): RateLimiter {
  const options = resolveOptions({
    keyPrefix: 'iv',
    cursorSecret: 'a-test-cursor-secret-of-32-characters-or-more',
    redis: { host: '127.0.0.1', port: 6379 },
  });
  const limiter = new RateLimiter(options, {} as HttpAdapterHost);
  // In place of the connection onModuleInit would open.
  Object.assign(limiter, { connection });
  return limiter;
}

describe('RateLimiter.markRevoked', () => {
  it('waits for a connection still being made, then marks the key, rather than refuse the revocation', async () => {
    const connection = new ConnectingRedis();
    const marking = limiterOn(connection).markRevoked('key_1');
    connection.becomeReady();
    await expect(marking).resolves.toBeUndefined();
    expect([...connection.values.keys()]).toEqual(['interview-api:revoked:key_1']);
  });
});
