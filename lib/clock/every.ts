/**
 * Runs `task` every `intervalMs`, its failures reported to `failed`, without keeping the process
 * alive for it; answers how to stop it.
 */
export function every(
  intervalMs: number,
  task: () => Promise<unknown>,
  failed: (error: unknown) => void,
): () => void {
  const timer = setInterval(() => void task().catch(failed), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
