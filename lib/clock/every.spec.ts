import { jest } from '@jest/globals';
import { every } from './every.js';

describe('every', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs the task after one interval, then every interval, until stopped', () => {
    const task = jest.fn(() => Promise.resolve(undefined));
    const stop = every(1_000, task, () => undefined);
    jest.advanceTimersByTime(999);
    expect(task).toHaveBeenCalledTimes(0);
    jest.advanceTimersByTime(1);
    expect(task).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(2_000);
    expect(task).toHaveBeenCalledTimes(3);
    stop();
    jest.advanceTimersByTime(10_000);
    expect(task).toHaveBeenCalledTimes(3);
  });

  it('runs the first time after firstAfterMs: a process restarted within each hour still purges', () => {
    const task = jest.fn(() => Promise.resolve(undefined));
    const stop = every(3_600_000, task, () => undefined, 60_000);
    jest.advanceTimersByTime(60_000);
    expect(task).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(3_600_000);
    expect(task).toHaveBeenCalledTimes(2);
    stop();
  });

  it('reports a failed run and keeps running', async () => {
    const failed = jest.fn<(error: unknown) => void>();
    const stop = every(1_000, () => Promise.reject(new Error('down')), failed);
    jest.advanceTimersByTime(1_000);
    await Promise.resolve();
    await Promise.resolve();
    expect(failed).toHaveBeenCalledWith(new Error('down'));
    jest.advanceTimersByTime(1_000);
    await Promise.resolve();
    await Promise.resolve();
    expect(failed).toHaveBeenCalledTimes(2);
    stop();
  });
});
