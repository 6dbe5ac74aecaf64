import { apiClient, sleep } from './support/api-client.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { warningsDuring } from './support/warnings.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_redis_logs';
const REFUSED = 'connect ECONNREFUSED 127.0.0.1:1';

/**
 * An operator's first question when nothing is sent: the logs answer it at start, with the cause,
 * once however often the connection is retried (every second or so).
 */
describe('a Redis that cannot be reached from the start', () => {
  it('is logged at start by the worker and the rate limiter, once each, and named when deliveries are left to the sweeper', async () => {
    let host: TestHost | undefined;
    const warnings = await warningsDuring(async () => {
      host = await createTestHost({
        module: { redis: { host: '127.0.0.1', port: 1 }, rateLimit: { test: 100, live: 100 } },
      });
      await sleep(3000);
      const client = apiClient(host, await host.createKey(ACCOUNT, 'test'));
      await createEndpoint(client, 'http://127.0.0.1:9/hook');
      await publishResults(host, ACCOUNT);
      // The enqueue waits 2 s for a Redis never reached, then leaves the batch to the sweeper.
      await sleep(3000);
    }).finally(() => host?.close());

    const starting = (prefix: string): string[] => warnings.filter((line) => line.startsWith(prefix));
    expect(starting(`Delivery worker: cannot reach Redis (${REFUSED}); nothing is sent`)).toHaveLength(1);
    expect(starting(`Rate limits are off until Redis answers again: ${REFUSED}`)).toHaveLength(1);
    // The first enqueue refused (or a sweep's before it) says why its connection failed.
    expect(warnings.filter((line) => line.includes('Deliveries are left to the sweeper'))).toEqual([
      expect.stringContaining(`(Redis: ${REFUSED}). Deliveries are left to the sweeper`),
    ]);
  });
});
