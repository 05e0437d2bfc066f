/**
 * A keyed work queue with bounded concurrency for the kwok-style node pool: each key
 * (a pod or node) is processed at most once at a time, a key queued again while it is
 * being processed runs once more afterwards, and at most `concurrency` handlers run at
 * once — so 10,000 pods becoming Running are written through a few in-flight requests
 * instead of 10,000 parallel ones.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/util/workqueue/queue.go (the dirty/processing sets)
 */
export class KeyedWorkQueue {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private running = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  /**
   * @param concurrency handlers in flight at most
   * @param handle processes one key; a rejection is swallowed (the handler logs and requeues itself if it wants)
   */
  constructor(
    private readonly concurrency: number,
    private readonly handle: (key: string) => Promise<void>,
  ) {}

  /** Queues `key` (deduplicated while waiting; re-run after the current run when processing). */
  add(key: string): void {
    if (this.stopped || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.pump();
  }

  /** Keys waiting or being processed. */
  get length(): number {
    return this.queue.length - this.head + this.processing.size;
  }

  /** Resolves when nothing is waiting or running. */
  idle(): Promise<void> {
    if (this.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.head = 0;
    this.dirty.clear();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.concurrency && this.head < this.queue.length) {
      const key = this.queue[this.head++]!;
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.dirty.delete(key);
      this.processing.add(key);
      this.running++;
      void this.handle(key)
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.processing.delete(key);
          if (this.dirty.has(key) && !this.stopped) this.queue.push(key);
          this.pump();
          if (this.length === 0) for (const w of this.idleWaiters.splice(0)) w();
        });
    }
  }
}
