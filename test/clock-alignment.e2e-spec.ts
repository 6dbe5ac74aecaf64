import type { ServerResponse } from 'node:http';
import { Clock } from '../lib/clock/clock.js';
import { ClockAlignment } from '../lib/clock/clock-alignment.js';
import { CLAIM_LEASE_MS, CLOCK_TOLERANCE_MS } from '../lib/interview-api.tuning.js';
import { DeliveryStore } from '../lib/delivery-store/delivery-store.js';
import { DeliverySweeper } from '../lib/delivery-engine/delivery-sweeper.js';
import { apiClient } from './support/api-client.js';
import { DB_KIND, TestDatabase } from './support/database.js';
import { ProcessClockOff } from './support/process-clock-off.js';
import { eventually } from './support/receiver.js';
import { createEndpoint, listAllDeliveries, publishResults, TEST_WEBHOOKS } from './support/webhooks.js';
import { closedAfterEachTest } from './support/per-test.js';

const { receivers, boot } = closedAfterEachTest();

const ACCOUNT = 'acct_clock';
const HOUR_MS = 3_600_000;
/** PostgreSQL has a clock of its own for the module to follow; SQLite shares its process's. */
const onPostgres = DB_KIND === 'postgres' ? it : it.skip;

describe("the module's clock and the database's", () => {
  it('stamps the events of a process whose clock is an hour ahead with the time of the database (PostgreSQL) or of the process (SQLite)', async () => {
    const host = await boot({ module: { worker: false }, clock: new ProcessClockOff(HOUR_MS) });
    const [event] = await publishResults(host, ACCOUNT, 1);
    const ahead = Date.parse(event.created_at) - Date.now();
    if (host.db.kind === 'postgres') expect(Math.abs(ahead)).toBeLessThan(5_000);
    else expect(ahead).toBeGreaterThan(HOUR_MS - 5_000);
  });

  onPostgres(
    'follows an offset beyond the tolerance only, and drops it once the process clock is right',
    async () => {
      const clock = new ProcessClockOff(0);
      const host = await boot({ module: { worker: false }, clock });
      const alignment = host.app.get(ClockAlignment);
      clock.offMs = CLOCK_TOLERANCE_MS / 5;
      expect(await alignment.align()).toBe(0);
      expect(clock.now().getTime() - Date.now()).toBeGreaterThanOrEqual(CLOCK_TOLERANCE_MS / 5 - 5);

      clock.offMs = -30_000;
      expect(Math.abs((await alignment.align()) - 30_000)).toBeLessThan(CLOCK_TOLERANCE_MS);
      expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(CLOCK_TOLERANCE_MS);

      clock.offMs = 0;
      expect(await alignment.align()).toBe(0);
      expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(50);
    },
  );

  onPostgres(
    "keeps to the database's time when the process clock is corrected between readings",
    async () => {
      const clock = new ProcessClockOff(-70_000);
      await boot({ module: { worker: false }, clock });
      expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(CLOCK_TOLERANCE_MS);
      // NTP steps the process clock right; the next reading is up to a minute away.
      clock.offMs = 0;
      expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(CLOCK_TOLERANCE_MS);
    },
  );

  /** The module's time as soon as it is within the tolerance of the real time again. */
  const backOnTime = (clock: Clock): Promise<true> =>
    eventually(async () => Math.abs(clock.now().getTime() - Date.now()) < CLOCK_TOLERANCE_MS, 2_000);

  onPostgres('reads the database again at once when a process clock that agreed is stepped', async () => {
    const clock = new ProcessClockOff(0);
    await boot({ module: { worker: false }, clock });
    clock.offMs = 70_000;
    await backOnTime(clock);
  });

  onPostgres('reads the database again at once after a suspend, while it follows the database', async () => {
    const clock = new ProcessClockOff(-70_000);
    await boot({ module: { worker: false }, clock });
    // The monotonic clock stopped for 30 s while the machine slept; the process's clock did not.
    clock.suspendedMs = 30_000;
    await backOnTime(clock);
  });

  onPostgres(
    "leaves a worker whose clock runs past another's lease neither sweeping nor claiming that worker's live delivery",
    async () => {
      const db = await TestDatabase.create();
      const webhooks = { ...TEST_WEBHOOKS, timeoutMs: 10_000 };
      let answer: ServerResponse | null = null;
      const receiver = await receivers.start((_request, index, response) => {
        if (index === 0) answer = response;
        else response.writeHead(200).end('ok');
      });
      const holder = await boot({ db, keepDatabase: true, module: { webhooks } });
      const client = apiClient(holder, await holder.createKey(ACCOUNT, 'test'));
      const endpoint = await createEndpoint(client, receiver.url);
      await publishResults(holder, ACCOUNT, 1);
      await receiver.waitFor(1);
      const [held] = await listAllDeliveries(client, endpoint.id);

      // By its own clock, this worker would find the holder's lease over a while ago.
      const ahead = await boot({
        db,
        module: { webhooks },
        clock: new ProcessClockOff(CLAIM_LEASE_MS + 10_000),
      });
      const clock = ahead.app.get(Clock);
      expect(await ahead.app.get(DeliverySweeper).sweep()).toBe(0);
      const lease = new Date(clock.now().getTime() + CLAIM_LEASE_MS);
      expect(await ahead.app.get(DeliveryStore).claim([held.id], clock.now(), lease)).toEqual([]);

      answer!.writeHead(200).end('ok');
      const delivery = await eventually(async () => {
        const [listed] = await listAllDeliveries(client, endpoint.id);
        return listed.status === 'succeeded' && listed;
      });
      expect(delivery).toMatchObject({ id: held.id, attempt: 1 });
      expect(receiver.requests).toHaveLength(1);
    },
  );
});
