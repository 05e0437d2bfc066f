/**
 * The clock the kubelet (and the simulated runtime) read time from and schedule
 * timers on. Injected so tests advance time instead of sleeping.
 *
 * @see https://github.com/kubernetes/utils/blob/master/clock/clock.go
 */

/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

export interface Clock {
  /** Wall-clock milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds of this clock's time. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The process clock; timers are unref'd so they never keep the process alive. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** Resolves after `ms` of `clock` time. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/**
 * Go's time.Duration.String() for a whole number of milliseconds, e.g. 1203 →
 * "1.203s", 500 → "500ms", 80000 → "1m20s", 300000 → "5m0s", 0 → "0s".
 * @see https://pkg.go.dev/time#Duration.String
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let v = Math.abs(ms);
  let out: string;
  if (v < 1000) out = `${trimFloat(v)}ms`;
  else {
    const h = Math.floor(v / 3_600_000);
    v -= h * 3_600_000;
    const m = Math.floor(v / 60_000);
    v -= m * 60_000;
    const s = `${trimFloat(v / 1000)}s`;
    out = h ? `${h}h${m}m${s}` : m ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function trimFloat(n: number): string {
  return String(Number(n.toFixed(9)));
}
