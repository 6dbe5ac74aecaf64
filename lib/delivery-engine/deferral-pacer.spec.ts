import { DeferralPacer } from './deferral-pacer.js';

describe('DeferralPacer', () => {
  const now = 1_000_000;

  it('spaces the deliveries given back for an endpoint by its pace, from the earliest time on', () => {
    const pacer = new DeferralPacer(3_600_000);
    const due = [0, 1, 2].map(() => pacer.dueAt('whk_slow', now, now + 5000, 400));
    expect(due).toEqual([now + 5000, now + 5400, now + 5800]);
    // Each endpoint has its own pace.
    expect(pacer.dueAt('whk_other', now, now + 1000, 10)).toBe(now + 1000);
    // Later ones never come before those already given back, nor before their own earliest time.
    expect(pacer.dueAt('whk_slow', now, now + 1000, 400)).toBe(now + 6200);
    expect(pacer.dueAt('whk_slow', now, now + 60_000, 400)).toBe(now + 60_000);
  });

  it('puts nothing off beyond its horizon', () => {
    const pacer = new DeferralPacer(10_000);
    const due = Array.from({ length: 5 }, () => pacer.dueAt('whk_slow', now, now + 1000, 4000));
    expect(due).toEqual([now + 1000, now + 5000, now + 9000, now + 10_000, now + 10_000]);
  });

  it('starts afresh once the pace of an endpoint is in the past', () => {
    const pacer = new DeferralPacer(3_600_000);
    pacer.dueAt('whk_slow', now, now + 1000, 400);
    const later = now + 60_000;
    expect(pacer.dueAt('whk_slow', later, later + 1000, 400)).toBe(later + 1000);
  });
});
