import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';

/** What the module warns its operator of while `run` runs. */
export async function warningsDuring(run: () => Promise<void>): Promise<string[]> {
  const warn = jest.spyOn(Logger.prototype, 'warn');
  try {
    await run();
    return warn.mock.calls.map(([message]) => String(message));
  } finally {
    warn.mockRestore();
  }
}
