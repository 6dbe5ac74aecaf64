/**
 * Runs `task` every `intervalMs`, the first time after `firstAfterMs` (by default one interval),
 * its failures reported to `failed`, without keeping the process alive for it; answers how to stop
 * it.
 */
export function every(
  intervalMs: number,
  task: () => Promise<unknown>,
  failed: (error: unknown) => void,
  firstAfterMs = intervalMs,
): () => void {
  let timer: NodeJS.Timeout;
  const runAfter = (ms: number): void => {
    timer = setTimeout(() => {
      runAfter(intervalMs);
      void task().catch(failed);
    }, ms);
    timer.unref();
  };
  runAfter(firstAfterMs);
  return () => clearTimeout(timer);
}
