/**
 * The clock components (kubelet, simulated runtime, controller work queues) read time
 * from and schedule timers on. Injected so tests advance time instead of sleeping; the
 * manual clock for tests is {@link FakeClock} in ./fake-clock.ts.
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
