/**
 * A rate-limited work queue with client-go's semantics: a key is queued at most once
 * (dirty set), is never processed by two workers at once (a key added while it is
 * processed is queued again when `done` is called), can be added after a delay, and
 * failing keys back off exponentially per key (5 ms doubling up to 1000 s) until
 * `forget` resets them.
 *
 * Timers come from an injectable {@link Clock} so tests drive time explicitly.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/queue.go
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/default_rate_limiters.go
 */
import { realClock, type Clock } from '../../util/clock.js';

interface WorkQueueOptions {
  clock?: Clock;
  /** first per-key retry delay, ms (default 5) */
  baseDelayMs?: number;
  /** largest per-key retry delay, ms (default 1000 s) */
  maxDelayMs?: number;
}

export class RateLimitingQueue {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly waiting = new Map<string, { at: number; handle: unknown }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  readonly clock: Clock;
  private readonly base: number;
  private readonly max: number;

  constructor(opts: WorkQueueOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.base = opts.baseDelayMs ?? 5;
    this.max = opts.maxDelayMs ?? 1_000_000;
  }

  /** Queues `key` unless already queued. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const g = this.getters.shift();
    if (g) {
      this.dirty.delete(key);
      this.processing.add(key);
      g(key);
      return;
    }
    this.queue.push(key);
  }

  /** Queues `key` after `ms`; an earlier pending delay for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + ms;
    const w = this.waiting.get(key);
    if (w && w.at <= at) return;
    if (w) this.clock.clearTimeout(w.handle);
    const handle = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { at, handle });
  }

  /** Queues `key` after its per-key backoff (5 ms · 2^failures, capped). */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(this.max, this.base * 2 ** n));
  }

  /** Clears the key's failure count. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** How many times the key failed since the last `forget`. */
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process; undefined once shut down. Call `done(key)` afterwards. */
  get(): Promise<string | undefined> {
    if (this.head < this.queue.length) {
      const key = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks `key` processed; queues it again when it was added meanwhile. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  get length(): number {
    return this.queue.length - this.head;
  }

  /** Stops handing out keys; pending `get`s resolve undefined. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) this.clock.clearTimeout(w.handle);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }
}

/**
 * Runs `workers` loops taking keys from `queue` and calling `sync(key)`: success forgets
 * the key, a thrown error requeues it rate-limited (and is passed to `onError`).
 * @returns a promise that settles once every worker has stopped (after `queue.shutDown()`)
 */
export function runWorkers(queue: RateLimitingQueue, workers: number, sync: (key: string) => Promise<void>, onError?: (key: string, err: unknown) => void): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (e) {
        onError?.(key, e);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  return Promise.all(Array.from({ length: workers }, loop)).then(() => undefined);
}
