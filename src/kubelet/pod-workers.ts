/**
 * One serialized worker per pod UID: `wake(uid)` runs the sync function for that UID
 * unless it is already running, in which case exactly one more run is queued. So
 * event-driven wakeups and timed requeues never overlap or pile up.
 *
 * Each sync answers when the pod wants its next one (upstream's work queue requeue in
 * completeWork): the worker keeps one timer per pod for that time, replaced by every
 * later sync. A sync that throws is requeued after `backOffMs` (upstream backOffPeriod).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pod_workers.go
 */
import type { Clock, TimerHandle } from '../util/clock.js';

interface WorkerState {
  again: boolean;
  done: Promise<void>;
}

interface Requeue {
  /** ms since the epoch */
  at: number;
  handle: TimerHandle;
}

/**
 * The sync body of one pod. Resolves to when the pod should be synced again (ms since
 * the epoch), or undefined for "only on events" (the pod is gone).
 */
type SyncFn = (uid: string) => Promise<number | undefined>;

export class PodWorkers {
  private readonly workers = new Map<string, WorkerState>();
  private readonly requeues = new Map<string, Requeue>();
  private closed = false;

  /**
   * @param clock schedules the requeue timers
   * @param backOffMs requeue delay after a sync that threw (ms, default 10 s)
   */
  constructor(
    private readonly sync: SyncFn,
    private readonly clock: Clock,
    private readonly onError: (uid: string, e: unknown) => void = () => undefined,
    private readonly backOffMs = 10_000,
  ) {}

  /** Schedules a sync of `uid` now (coalesced with one already pending). */
  wake(uid: string): void {
    if (this.closed) return;
    const w = this.workers.get(uid);
    if (w) {
      w.again = true;
      return;
    }
    const st: WorkerState = { again: false, done: Promise.resolve() };
    this.workers.set(uid, st);
    st.done = (async () => {
      try {
        do {
          st.again = false;
          let next: number | undefined;
          try {
            next = await this.sync(uid);
          } catch (e) {
            this.onError(uid, e);
            next = this.clock.now() + this.backOffMs;
          }
          this.requeueAt(uid, next);
        } while (st.again && !this.closed);
      } finally {
        this.workers.delete(uid);
      }
    })();
  }

  /** Replaces the pending timed sync of `uid` with one at `at` (ms since the epoch; undefined: none). */
  private requeueAt(uid: string, at: number | undefined): void {
    const old = this.requeues.get(uid);
    if (old) {
      if (old.at === at) return;
      this.clock.clearTimeout(old.handle);
      this.requeues.delete(uid);
    }
    if (at === undefined || this.closed || !Number.isFinite(at)) return;
    const handle = this.clock.setTimeout(() => {
      if (this.requeues.get(uid)?.handle !== handle) return;
      this.requeues.delete(uid);
      this.wake(uid);
    }, at - this.clock.now());
    this.requeues.set(uid, { at, handle });
  }

  /** When the next timed sync of `uid` is due (ms since the epoch; tests, debugging). */
  nextSync(uid: string): number | undefined {
    return this.requeues.get(uid)?.at;
  }

  /** Is a sync of `uid` running or queued? */
  busy(uid: string): boolean {
    return this.workers.has(uid);
  }

  /** Stops accepting work, cancels timed syncs and waits for running syncs to finish. */
  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.requeues.values()) this.clock.clearTimeout(r.handle);
    this.requeues.clear();
    await Promise.all([...this.workers.values()].map((w) => w.done));
  }

  /** Waits until no sync is running (tests). */
  async idle(): Promise<void> {
    while (this.workers.size) await Promise.all([...this.workers.values()].map((w) => w.done));
  }
}
