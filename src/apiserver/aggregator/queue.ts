/**
 * A small keyed work queue for the aggregator's controllers (client-go's rate-limiting
 * workqueue reduced to what they use): a key is queued once however often it is added,
 * one worker syncs keys in order, a failed sync is retried after a per-key exponential
 * backoff (`baseMs` doubling up to `maxMs`), a successful one forgets the backoff.
 *
 * @see https://github.com/kubernetes/client-go/blob/v0.32.0/util/workqueue/default_rate_limiters.go
 */
import { type Clock, realClock, type TimerHandle } from '../../util/clock.js';

export interface KeyQueueOptions {
  /** syncs one key; a rejection schedules a retry */
  sync(key: string): Promise<void>;
  /** first retry delay, ms (default 5) */
  baseMs?: number;
  /** longest retry delay, ms (default 30 000) */
  maxMs?: number;
  clock?: Clock;
}

export class KeyQueue {
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<TimerHandle>();
  private running = false;
  private stopped = false;
  private readonly clock: Clock;

  constructor(private readonly o: KeyQueueOptions) {
    this.clock = o.clock ?? realClock;
  }

  add(key: string): void {
    if (this.stopped) return;
    this.dirty.add(key);
    if (!this.running) void this.drain();
  }

  /** Adds `key` after `ms`. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const t = this.clock.setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, ms);
    this.timers.add(t);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) this.clock.clearTimeout(t);
    this.timers.clear();
    this.dirty.clear();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped && this.dirty.size) {
        const key = this.dirty.values().next().value as string;
        this.dirty.delete(key);
        try {
          await this.o.sync(key);
          this.failures.delete(key);
        } catch {
          const n = this.failures.get(key) ?? 0;
          this.failures.set(key, n + 1);
          this.addAfter(key, Math.min(this.o.maxMs ?? 30_000, (this.o.baseMs ?? 5) * 2 ** n));
        }
      }
    } finally {
      this.running = false;
    }
  }
}
