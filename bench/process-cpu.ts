import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time a process has used so far, all its threads included (V8's compiler and GC threads,
 * libuv's pool), in nanoseconds, from Linux's per-thread scheduler statistics; null where /proc
 * does not offer them. Read from outside, so measuring a process costs it nothing.
 */
export function processCpuNanos(pid: number): number | null {
  try {
    let total = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      total += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    }
    return total;
  } catch {
    return null;
  }
}

/** CPU used by groups of processes since `start`. */
export class CpuMeter {
  private readonly before = new Map<number, number>();

  /** Snapshots the processes known now; a process first seen by `used` counts from zero. */
  start(pids: readonly number[]): void {
    for (const pid of pids) {
      const nanos = processCpuNanos(pid);
      if (nanos !== null) this.before.set(pid, nanos);
    }
  }

  /** Microseconds of CPU the group used since `start`, or null when none of it could be read (an empty group too). */
  used(pids: readonly number[]): number | null {
    let total: number | null = null;
    for (const pid of pids) {
      const nanos = processCpuNanos(pid);
      if (nanos !== null) total = (total ?? 0) + (nanos - (this.before.get(pid) ?? 0)) / 1000;
    }
    return total;
  }
}
