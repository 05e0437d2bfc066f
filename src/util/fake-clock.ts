/**
 * A manual clock for tests: time moves only through {@link FakeClock.advance}, which
 * fires due timers in order and lets promise chains run between them.
 */
import type { Clock, TimerHandle } from './clock.js';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** File-system requests in flight on libuv's thread pool (fs.promises, callback fs, FileHandle closes). */
function fsPending(): boolean {
  for (const r of process.getActiveResourcesInfo()) if (r === 'FSReqPromise' || r === 'FSReqCallback' || r === 'CloseReq') return true;
  return false;
}

/**
 * Lets pending promise callbacks and I/O callbacks run (a few macrotask turns), waiting
 * in each turn for file-system requests in flight (they are async work too, finished in
 * real time on the thread pool; at most ~2 s per turn).
 */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((r) => setImmediate(r));
    for (let n = 0; n < 2000 && fsPending(); n++) await new Promise<void>((r) => setTimeout(r, 1));
  }
}

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = Date.parse('2025-01-01T00:00:00Z')) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: ++this.seq, at: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  /** Number of timers still pending. */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that comes due (in time order,
   * including timers scheduled by fired timers) and flushing async work after each.
   */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await flush();
    for (;;) {
      let next: Timer | undefined;
      for (const x of this.timers) if (x.at <= end && (!next || x.at < next.at || (x.at === next.at && x.id < next.id))) next = x;
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }

  /** Advances in `step` ms increments until `cond()` holds or `maxMs` passed; returns whether it held. */
  async advanceUntil(cond: () => boolean, maxMs: number, step = 100): Promise<boolean> {
    for (let waited = 0; waited <= maxMs; waited += step) {
      if (cond()) return true;
      await this.advance(step);
    }
    return cond();
  }
}
