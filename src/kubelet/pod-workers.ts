/**
 * One serialized worker per pod UID: `wake(uid)` runs the sync function for that UID
 * unless it is already running, in which case exactly one more run is queued. So
 * event-driven wakeups and the periodic resync never overlap or pile up.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/pod_workers.go
 */

interface WorkerState {
  running: boolean;
  again: boolean;
  done: Promise<void>;
}

export class PodWorkers {
  private readonly workers = new Map<string, WorkerState>();
  private closed = false;

  constructor(
    private readonly sync: (uid: string) => Promise<void>,
    private readonly onError: (uid: string, e: unknown) => void = () => undefined,
  ) {}

  /** Schedules a sync of `uid` (coalesced with one already pending). */
  wake(uid: string): void {
    if (this.closed) return;
    const w = this.workers.get(uid);
    if (w) {
      w.again = true;
      return;
    }
    const st: WorkerState = { running: true, again: false, done: Promise.resolve() };
    this.workers.set(uid, st);
    st.done = (async () => {
      try {
        do {
          st.again = false;
          try {
            await this.sync(uid);
          } catch (e) {
            this.onError(uid, e);
          }
        } while (st.again && !this.closed);
      } finally {
        this.workers.delete(uid);
      }
    })();
  }

  /** Is a sync of `uid` running or queued? */
  busy(uid: string): boolean {
    return this.workers.has(uid);
  }

  /** Stops accepting work and waits for running syncs to finish. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.workers.values()].map((w) => w.done));
  }

  /** Waits until no sync is running (tests). */
  async idle(): Promise<void> {
    while (this.workers.size) await Promise.all([...this.workers.values()].map((w) => w.done));
  }
}
