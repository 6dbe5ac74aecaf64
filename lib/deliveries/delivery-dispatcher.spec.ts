import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import type { DeliveryBatch, DeliveryQueue } from './delivery-queue.js';

/** Records what the dispatcher enqueues, and when; Redis plays no part in when it does. */
class RecordingQueue {
  readonly added: { at: number; ids: string[][] }[] = [];

  add(batches: DeliveryBatch[]): Promise<boolean> {
    this.added.push({ at: Date.now(), ids: batches.map((batch) => batch.ids) });
    return Promise.resolve(true);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const due = (...ids: string[]): { id: string; nextAttemptAt: null }[] =>
  ids.map((id) => ({ id, nextAttemptAt: null }));

function dispatcher(batchSize: number): { dispatcher: DeliveryDispatcher; queue: RecordingQueue } {
  const queue = new RecordingQueue();
  const options = { webhooks: { batchSize } } as ResolvedOptions;
  return { dispatcher: new DeliveryDispatcher(queue as unknown as DeliveryQueue, options), queue };
}

describe('DeliveryDispatcher', () => {
  it('enqueues a delivery that arrives after a quiet window at once', () => {
    const { dispatcher: d, queue } = dispatcher(100);
    d.dispatch(due('dlv_1'));
    expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']]]);
  });

  it('coalesces what arrives within the window after an enqueue into one batch', async () => {
    const { dispatcher: d, queue } = dispatcher(100);
    d.dispatch(due('dlv_1'));
    d.dispatch(due('dlv_2'));
    d.dispatch(due('dlv_3', 'dlv_4'));
    expect(queue.added).toHaveLength(1);
    await sleep(60);
    expect(queue.added.map((add) => add.ids)).toEqual([[['dlv_1']], [['dlv_2', 'dlv_3', 'dlv_4']]]);
    // The second enqueue waited for the window, not longer.
    expect(queue.added[1].at - queue.added[0].at).toBeGreaterThanOrEqual(25);
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
});
