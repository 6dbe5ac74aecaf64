import { jest } from '@jest/globals';
import { ClockAhead } from '../../test/support/clock-ahead.js';
import { Clock } from '../clock/clock.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import type { DeliveryBatch, DeliveryQueue } from './delivery-queue.js';

/** Records what the dispatcher enqueues, and when; Redis plays no part in when it does. */
class RecordingQueue {
  readonly added: { at: number; ids: string[][]; delays: number[] }[] = [];

  add(batches: DeliveryBatch[]): Promise<boolean> {
    this.added.push({
      at: Date.now(),
      ids: batches.map((batch) => batch.ids),
      delays: batches.map((batch) => batch.delayMs),
    });
    return Promise.resolve(true);
  }
}

const due = (...ids: string[]): { id: string; nextAttemptAt: null }[] =>
  ids.map((id) => ({ id, nextAttemptAt: null }));

function dispatcher(
  batchSize: number,
  clock: Clock = new Clock(),
  sweepIntervalMs = 30_000,
): { dispatcher: DeliveryDispatcher; queue: RecordingQueue } {
  const queue = new RecordingQueue();
  const options = { webhooks: { batchSize, sweepIntervalMs } } as ResolvedOptions;
  return {
    dispatcher: new DeliveryDispatcher(queue as unknown as DeliveryQueue, clock, options),
    queue,
  };
}

describe('DeliveryDispatcher', () => {
  it('enqueues a delivery that arrives after a quiet window at once', () => {
    const { dispatcher: d, queue } = dispatcher(100);
    d.dispatch(due('dlv_1'));
    expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']]]);
  });

  it("delays a retry by its due time on the module's clock, whatever the process's says", async () => {
    const clock = new ClockAhead(3_600_000);
    const { dispatcher: d, queue } = dispatcher(100, clock);
    d.dispatch([{ id: 'dlv_retry', nextAttemptAt: new Date(clock.now().getTime() + 5_000) }]);
    await d.flush();
    const [delay] = queue.added.flatMap((add) => add.delays);
    // Rounded up to the next whole second of the clock: between 5 and 6 s, not an hour more.
    expect(delay).toBeGreaterThan(4_900);
    expect(delay).toBeLessThanOrEqual(6_000);
  });

  it('coalesces what arrives within the window after an enqueue into one batch', () => {
    // Fake timers: the window is read on the process's time, which a loaded machine would stretch.
    jest.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    try {
      const { dispatcher: d, queue } = dispatcher(100);
      d.dispatch(due('dlv_1'));
      d.dispatch(due('dlv_2'));
      d.dispatch(due('dlv_3', 'dlv_4'));
      expect(queue.added).toHaveLength(1);
      jest.advanceTimersByTime(29);
      expect(queue.added).toHaveLength(1);
      // The second enqueue waited for the window, not longer.
      jest.advanceTimersByTime(1);
      expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']], [['dlv_2', 'dlv_3', 'dlv_4']]]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('enqueues a full batch at once, even within the window', () => {
    const { dispatcher: d, queue } = dispatcher(3);
    d.dispatch(due('dlv_1'));
    d.dispatch(due('dlv_2'));
    d.dispatch(due('dlv_3', 'dlv_4'));
    expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']], [['dlv_2', 'dlv_3', 'dlv_4']]]);
  });

  it('splits what it holds into batches of at most batchSize', async () => {
    const { dispatcher: d, queue } = dispatcher(2);
    d.dispatch(due('dlv_0'));
    d.dispatch(due('dlv_1', 'dlv_2', 'dlv_3', 'dlv_4', 'dlv_5'));
    await d.onApplicationShutdown();
    expect(queue.added.map((add) => add.ids)).toEqual([
      [['dlv_0']],
      [['dlv_1', 'dlv_2'], ['dlv_3', 'dlv_4'], ['dlv_5']],
    ]);
  });
  describe('retries due 10 s or more ahead', () => {
    const START = Date.UTC(2026, 0, 1);
    const retry = (id: string, dueAt: number) => [{ id, nextAttemptAt: new Date(dueAt) }];

    beforeEach(() => jest.useFakeTimers({ now: START }));
    afterEach(() => jest.useRealTimers());

    it('are held for 5 s, so that those recorded apart share a job of their cell', () => {
      const { dispatcher: d, queue } = dispatcher(100);
      d.dispatch(retry('dlv_1', START + 300_000));
      jest.advanceTimersByTime(1_000);
      // Recorded a second later, due half a second sooner: the same cell of 2 s (a lead of 300 s).
      d.dispatch(retry('dlv_2', START + 299_500));
      jest.advanceTimersByTime(3_999);
      expect(queue.added).toHaveLength(0);
      jest.advanceTimersByTime(1);
      expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1', 'dlv_2']]]);
      // Due when its cell ends, on time: 295 s after the enqueue, 5 s after the first was recorded.
      expect(queue.added[0].delays).toEqual([295_000]);
    });

    it('run at most about 1 % of their delay after it, in cells that line up', () => {
      const { dispatcher: d, queue } = dispatcher(100, new Clock(), 3_600_000);
      const tenHours = 36_000_000;
      d.dispatch(retry('dlv_1', START + tenHours + 1));
      jest.advanceTimersByTime(5_000);
      const [delay] = queue.added[0].delays;
      const runsAt = START + 5_000 + delay;
      expect(runsAt).toBeGreaterThan(START + tenHours);
      expect(runsAt - (START + tenHours)).toBeLessThanOrEqual(tenHours / 100);
      expect(runsAt % 256_000).toBe(0);
    });

    it('run within half a sweep interval of their due time, which the sweeper would take for lost', () => {
      const { dispatcher: d, queue } = dispatcher(100);
      const tenHours = 36_000_000;
      d.dispatch(retry('dlv_1', START + tenHours + 1));
      jest.advanceTimersByTime(5_000);
      const runsAt = START + 5_000 + queue.added[0].delays[0];
      expect(runsAt).toBeGreaterThan(START + tenHours);
      // Cells of 8 s, the largest power of two seconds within half of the default 30 s.
      expect(runsAt - (START + tenHours)).toBeLessThanOrEqual(8_000);
      expect(runsAt % 8_000).toBe(0);
    });

    it('go at once when their cell fills a batch', () => {
      const { dispatcher: d, queue } = dispatcher(2);
      d.dispatch([...retry('dlv_1', START + 60_000), ...retry('dlv_2', START + 60_000)]);
      expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1', 'dlv_2']]]);
    });

    it('are sent at shutdown', async () => {
      const { dispatcher: d, queue } = dispatcher(100);
      d.dispatch(retry('dlv_1', START + 60_000));
      d.dispatch(due('dlv_now'));
      await d.onApplicationShutdown();
      expect(queue.added.flatMap((add) => add.ids).sort()).toEqual([['dlv_1'], ['dlv_now']]);
    });

    it('are not held when due within 10 s: they go with the window', () => {
      const { dispatcher: d, queue } = dispatcher(100);
      d.dispatch(retry('dlv_1', START + 9_000));
      expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']]]);
    });

    it('are held from a cell that ends 10 s ahead on', () => {
      const { dispatcher: d, queue } = dispatcher(100);
      d.dispatch(retry('dlv_1', START + 10_000));
      expect(queue.added).toHaveLength(0);
      jest.advanceTimersByTime(5_000);
      expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']]]);
    });
  });
});
