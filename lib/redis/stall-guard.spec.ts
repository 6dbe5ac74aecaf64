import { jest } from '@jest/globals';
import { StallGuard } from './stall-guard.js';

/** A command whose answer the test gives when it likes. */
function pending(): { answer: Promise<string>; give: (value: string) => void } {
  let give: (value: string) => void = () => undefined;
  const answer = new Promise<string>((resolve) => (give = resolve));
  return { answer, give };
}

describe('StallGuard', () => {
  it('answers what Redis answers in time, and sends the next command', async () => {
    const guard = new StallGuard();
    await expect(guard.answerWithin(() => Promise.resolve('OK'), 50)).resolves.toBe('OK');
    await expect(guard.answerWithin(() => Promise.resolve('PONG'), 50)).resolves.toBe('PONG');
    expect(guard.stalled).toBe(false);
  });

  it('stays open after a command that fails in time', async () => {
    const guard = new StallGuard();
    await expect(guard.answerWithin(() => Promise.reject(new Error('closed')), 50)).rejects.toThrow('closed');
    expect(guard.stalled).toBe(false);
  });

  it('sends nothing while a command waits past its deadline, and sends again once it is answered', async () => {
    const guard = new StallGuard();
    const late = pending();
    await expect(guard.answerWithin(() => late.answer, 20)).rejects.toThrow('no answer from Redis in 20 ms');
    expect(guard.stalled).toBe(true);

    const send = jest.fn(() => Promise.resolve('OK'));
    await expect(guard.answerWithin(send, 20)).rejects.toThrow('has not answered an earlier command');
    expect(send).not.toHaveBeenCalled();

    late.give('OK');
    await late.answer;
    expect(guard.stalled).toBe(false);
    await expect(guard.answerWithin(send, 20)).resolves.toBe('OK');
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('stays shut until the last of several late commands is answered', async () => {
    const guard = new StallGuard();
    const first = pending();
    const second = pending();
    await Promise.allSettled([
      guard.answerWithin(() => first.answer, 20),
      guard.answerWithin(() => second.answer, 20),
    ]);
    first.give('OK');
    await first.answer;
    expect(guard.stalled).toBe(true);
    second.give('OK');
    await second.answer;
    expect(guard.stalled).toBe(false);
  });
});
