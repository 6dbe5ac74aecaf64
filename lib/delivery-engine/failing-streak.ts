/**
 * An endpoint is disabled once every attempt has failed for `disableAfterMs`, with no pause between
 * two failures longer than `pauseMs`; a longer pause starts the streak afresh, so one failure after
 * days without traffic does not disable it.
 */
export interface FailingStreakRule {
  disableAfterMs: number;
  pauseMs: number;
}

/**
 * The longest a failing delivery can wait between two attempts (its longest retry delay with the
 * most jitter, doubled by a Retry-After) plus one attempt's deadline: failures further apart than
 * that are not one delivery retrying, nor steady traffic failing.
 */
export function failingStreakRule(webhooks: {
  disableAfterMs: number;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
}): FailingStreakRule {
  const longestDelayMs = Math.max(0, ...webhooks.retryScheduleMs);
  return {
    disableAfterMs: webhooks.disableAfterMs,
    pauseMs: Math.ceil(2 * 1.2 * longestDelayMs) + webhooks.timeoutMs,
  };
}
