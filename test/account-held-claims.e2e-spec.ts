import { apiClient } from './support/api-client.js';
import { TestDatabase } from './support/database.js';
import { eventually } from './support/receiver.js';
import {
  countByWebhookId,
  createEndpoint,
  listAllDeliveries,
  publishResults,
  TEST_WEBHOOKS,
} from './support/webhooks.js';
import { closedAfterEachTest } from './support/per-test.js';

const { hosts, receivers } = closedAfterEachTest();

describe('the claims a worker holds for one account', () => {
  it("grow with the account's share of the send slots, not with its number of endpoints", async () => {
    // Two send slots, each held 3 s by an attempt to the silent receiver; the worker holds at most
    // 32 claimed deliveries (16 per slot), claimed in jobs of 10.
    const webhooks = { ...TEST_WEBHOOKS, concurrency: 2, timeoutMs: 3000, batchSize: 10 };
    const host = await hosts.start({ db: await TestDatabase.create(), module: { webhooks } });
    const silent = await receivers.start(() => undefined);
    const prompt = await receivers.start();

    // One account with forty endpoints that never answer, two events each: 80 sends of 3 s.
    const noisy = apiClient(host, await host.createKey('acct_noisy', 'test'));
    for (let i = 0; i < 40; i++) await createEndpoint(noisy, silent.url);
    await publishResults(host, 'acct_noisy', 2);
    await silent.waitFor(2);

    // Another account's jobs queue behind the first account's claims. Once the first attempts time
    // out, the first account may hold two rounds of its share in all, and gives back the rest at
    // once: the other account's deliveries are claimed and go out within a deadline or two. Held
    // per endpoint (two rounds each, however many endpoints), the first account kept the worker
    // full, and the other's deliveries waited for its backlog: over 80 s.
    const quiet = apiClient(host, await host.createKey('acct_quiet', 'test'));
    const answered = await createEndpoint(quiet, prompt.url);
    const events = await publishResults(host, 'acct_quiet', 5);
    await eventually(async () => {
      const deliveries = await listAllDeliveries(quiet, answered.id);
      return deliveries.length === 5 && deliveries.every((delivery) => delivery.status === 'succeeded');
    }, 20_000);

    // Each pair of attempts to the silent receiver is one deadline of both slots: the other
    // account's deliveries were all sent before the third.
    expect(silent.requests.length).toBeLessThanOrEqual(6);
    const counts = countByWebhookId(prompt.requests);
    expect(events.every((event) => counts.get(event.id) === 1)).toBe(true);
    expect(prompt.requests).toHaveLength(5);
    await silent.close();
  });
});
