import { SendLimiter } from './send-limiter.js';

/** A task that stays in flight until the test settles it. */
function pending(): {
  promise: Promise<string>;
  resolve: (value: string) => void;
  reject: (error: Error) => void;
} {
  let resolve!: (value: string) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SendLimiter', () => {
  it('never runs more than its limit at once, and starts the waiting in the order they came', async () => {
    const limiter = new SendLimiter(2);
    const tasks = Array.from({ length: 5 }, pending);
    const started: number[] = [];
    const results = tasks.map((task, i) =>
      limiter.run(() => {
        started.push(i);
        return task.promise;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    tasks[1].resolve('one');
    await tick();
    expect(started).toEqual([0, 1, 2]);
    tasks[0].resolve('zero');
    tasks[2].resolve('two');
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    tasks[3].resolve('three');
    tasks[4].resolve('four');
    await expect(Promise.all(results)).resolves.toEqual(['zero', 'one', 'two', 'three', 'four']);
  });

  it('frees the slot of a task that fails or throws, and passes the failure on', async () => {
    const limiter = new SendLimiter(1);
    const failing = limiter.run(() => Promise.reject(new Error('refused')));
    const throwing = limiter.run(() => {
      throw new Error('thrown');
    });
    const next = limiter.run(() => Promise.resolve('sent'));
    await expect(failing).rejects.toThrow('refused');
    await expect(throwing).rejects.toThrow('thrown');
    await expect(next).resolves.toBe('sent');
  });

  it('gives a freed slot to the oldest waiting task, not to one that arrives meanwhile', async () => {
    const limiter = new SendLimiter(1);
    const first = pending();
    const started: string[] = [];
    let running = 0;
    let mostRunning = 0;
    const begin = (name: string): void => {
      started.push(name);
      mostRunning = Math.max(mostRunning, ++running);
    };
    // Reactions run in the order they were registered: this one, then the limiter's release, then
    // the late task's start, before the waiting task has resumed.
    void first.promise.then(() => running--);
    void limiter.run(() => {
      begin('first');
      return first.promise;
    });
    const waiting = limiter.run(() => {
      begin('waiting');
      return Promise.resolve('w').finally(() => running--);
    });
    const late = first.promise.then(() =>
      limiter.run(() => {
        begin('late');
        return Promise.resolve('l').finally(() => running--);
      }),
    );
    first.resolve('f');
    await Promise.all([waiting, late]);
    expect(started).toEqual(['first', 'waiting', 'late']);
    expect(mostRunning).toBe(1);
  });
});
