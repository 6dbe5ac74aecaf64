import { nextAttemptAt } from './retry-schedule.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const SCHEDULE = [5_000, 300_000, 1_800_000];
const at = (date: Date | null): number | null => (date === null ? null : date.getTime() - NOW.getTime());

describe('nextAttemptAt', () => {
  it('follows the schedule with a jitter of ±20%', () => {
    expect(at(nextAttemptAt(SCHEDULE, 1, NOW, null, () => 0))).toBe(4_000);
    expect(at(nextAttemptAt(SCHEDULE, 1, NOW, null, () => 1))).toBe(6_000);
    expect(at(nextAttemptAt(SCHEDULE, 2, NOW, null, () => 0.5))).toBe(300_000);
  });

  it('answers null once the schedule is used up, whatever the receiver asked', () => {
    expect(nextAttemptAt(SCHEDULE, 4, NOW, 60_000)).toBeNull();
  });

  it('waits as long as Retry-After asks when that is later than the schedule, never earlier', () => {
    expect(at(nextAttemptAt(SCHEDULE, 1, NOW, 8_000, () => 0.5))).toBe(8_000);
    expect(at(nextAttemptAt(SCHEDULE, 2, NOW, 1_000, () => 0.5))).toBe(300_000);
  });

  it('waits at most twice the scheduled delay, whatever Retry-After asks', () => {
    expect(at(nextAttemptAt(SCHEDULE, 1, NOW, 60_000, () => 0.5))).toBe(10_000);
    expect(at(nextAttemptAt(SCHEDULE, 1, NOW, 60_000, () => 0))).toBe(8_000);
    expect(at(nextAttemptAt(SCHEDULE, 3, NOW, 365 * 24 * 3_600_000, () => 0.5))).toBe(3_600_000);
  });
});
