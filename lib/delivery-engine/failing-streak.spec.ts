import { failingStreakRule } from './failing-streak.js';

describe('failingStreakRule', () => {
  it('allows a pause as long as the longest wait of one delivery between two attempts', () => {
    const hour = 3_600_000;
    expect(
      failingStreakRule({
        disableAfterMs: 5 * 24 * hour,
        retryScheduleMs: [5_000, 5 * 60_000, 10 * hour, 2 * hour],
        timeoutMs: 10_000,
      }),
    ).toEqual({ disableAfterMs: 5 * 24 * hour, pauseMs: 24 * hour + 10_000 });
  });

  it('allows one deadline when nothing is retried', () => {
    expect(failingStreakRule({ disableAfterMs: 1000, retryScheduleMs: [], timeoutMs: 2000 }).pauseMs).toBe(
      2000,
    );
  });
});
