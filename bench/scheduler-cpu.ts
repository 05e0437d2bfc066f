/**
 * Per-thread CPU time for the scheduler benchmark, from /proc (Linux). Unlike
 * wall-clock figures, CPU seconds per pod stay meaningful on a loaded, shared machine.
 */
import { readFileSync } from 'node:fs';

/** utime + stime, in seconds, of a /proc/<pid>[/task/<tid>]/stat text (clock ticks of 10 ms). */
export function cpuSecondsOf(stat: string): number {
  const parts = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(parts[11]) + Number(parts[12])) / 100;
}

/** CPU seconds of the calling thread (main or worker) from /proc/thread-self/stat; NaN without /proc. */
export function threadCpuSeconds(): number {
  try {
    return cpuSecondsOf(readFileSync('/proc/thread-self/stat', 'utf8'));
  } catch {
    return Number.NaN;
  }
}
