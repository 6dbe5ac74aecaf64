import { jest } from '@jest/globals';
import type { DeliveryOutcome } from '../delivery-store/claimed-delivery.js';
import { RECORD_RETRY_PAUSES_MS } from '../interview-api.tuning.js';
import { OutcomeRecorder } from './outcome-recorder.js';

function outcome(id: string): DeliveryOutcome {
  return {
    delivery: {
      id,
      endpointId: 'whk_1',
      tenant: 'acct_1:test',
      eventId: 'evt_1',
      attempt: 0,
      claimedAt: new Date(0),
      target: null,
      payload: null,
      bodyUnread: false,
    },
    attempted: true,
    status: 'succeeded',
    responseStatus: 200,
    responseBody: 'ok',
    error: null,
    durationMs: 1,
    nextAttemptAt: null,
    goneUrl: null,
  };
}

/** A write whose groups are kept, each finishing when the test says so. */
class RecordingWrite {
  readonly groups: string[][] = [];
  private readonly finishers: ((error?: Error) => void)[] = [];
  readonly write = (outcomes: DeliveryOutcome[]): Promise<void> => {
    this.groups.push(outcomes.map((o) => o.delivery.id));
    return new Promise((resolve, reject) =>
      this.finishers.push((error) => (error ? reject(error) : resolve())),
    );
  };

  finish(group: number, error?: Error): void {
    this.finishers[group](error);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('OutcomeRecorder', () => {
  it('writes the outcomes that end within a short window together, and resolves each once written', async () => {
    const store = new RecordingWrite();
    const recorder = new OutcomeRecorder(store.write, 100, () => undefined);
    let written = false;
    const recorded = Promise.all(['dlv_1', 'dlv_2'].map((id) => recorder.add(outcome(id)))).then(
      () => (written = true),
    );
    expect(store.groups).toEqual([]);
    void recorder.add(outcome('dlv_3'));
    await sleep(60);
    expect(store.groups).toEqual([['dlv_1', 'dlv_2', 'dlv_3']]);
    expect(written).toBe(false);
    store.finish(0);
    await recorded;
  });

  it('writes a full group at once, and what ends later in a group of its own', async () => {
    const store = new RecordingWrite();
    const recorder = new OutcomeRecorder(store.write, 2, () => undefined);
    void recorder.add(outcome('dlv_1'));
    void recorder.add(outcome('dlv_2'));
    expect(store.groups).toEqual([['dlv_1', 'dlv_2']]);
    void recorder.add(outcome('dlv_3'));
    await sleep(60);
    expect(store.groups).toEqual([['dlv_1', 'dlv_2'], ['dlv_3']]);
  });

  describe('a failed write', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('is written again after a pause, and reports nothing once it is written', async () => {
      const store = new RecordingWrite();
      const failures: unknown[] = [];
      const recorder = new OutcomeRecorder(store.write, 1, (error) => failures.push(error));
      let settled = false;
      const recorded = recorder.add(outcome('dlv_1')).then(() => (settled = true));
      store.finish(0, new Error('connection terminated'));
      await jest.advanceTimersByTimeAsync(RECORD_RETRY_PAUSES_MS[0] - 1);
      expect(store.groups).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(store.groups).toEqual([['dlv_1'], ['dlv_1']]);
      expect(settled).toBe(false);
      store.finish(1);
      await recorded;
      expect(failures).toEqual([]);
    });

    it('is reported once every pause has passed, and still settles its outcomes', async () => {
      const store = new RecordingWrite();
      const failures: unknown[] = [];
      const recorder = new OutcomeRecorder(store.write, 1, (error) => failures.push(error));
      const recorded = recorder.add(outcome('dlv_1'));
      for (let write = 0; write <= RECORD_RETRY_PAUSES_MS.length; write++) {
        expect(store.groups).toHaveLength(write + 1);
        store.finish(write, new Error(`database down ${write}`));
        await jest.advanceTimersByTimeAsync(RECORD_RETRY_PAUSES_MS[write] ?? 0);
      }
      await recorded;
      expect(failures).toEqual([new Error(`database down ${RECORD_RETRY_PAUSES_MS.length}`)]);
      // Within a claim's lease (60 s), renewed meanwhile.
      expect(RECORD_RETRY_PAUSES_MS.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(20_000);
    });
  });
});
