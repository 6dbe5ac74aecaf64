import { RepeatLimitedWarnings } from './repeat-limited-warnings.js';

describe('RepeatLimitedWarnings', () => {
  let now: number;
  let logged: string[];
  let warnings: RepeatLimitedWarnings;
  beforeEach(() => {
    now = 0;
    logged = [];
    warnings = new RepeatLimitedWarnings(
      (message) => logged.push(message),
      () => now,
    );
  });

  it('logs a repeated message once a minute, with how many times it was left out', () => {
    for (let i = 0; i < 5; i++) warnings.add('connect ECONNREFUSED');
    now = 59_999;
    warnings.add('connect ECONNREFUSED');
    expect(logged).toEqual(['connect ECONNREFUSED']);
    now = 60_000;
    warnings.add('connect ECONNREFUSED');
    expect(logged).toEqual([
      'connect ECONNREFUSED',
      'connect ECONNREFUSED (and 5 times more in the last minute)',
    ]);
  });

  it('logs each of two alternating messages once', () => {
    for (let i = 0; i < 3; i++) {
      warnings.add('OOM command not allowed');
      warnings.add('connect ECONNREFUSED');
    }
    expect(logged).toEqual(['OOM command not allowed', 'connect ECONNREFUSED']);
  });

  it('logs a message again at once after clear', () => {
    warnings.add('connect ECONNREFUSED');
    warnings.clear();
    warnings.add('connect ECONNREFUSED');
    expect(logged).toEqual(['connect ECONNREFUSED', 'connect ECONNREFUSED']);
  });
});
