/**
 * The skeleton every workload controller shares: a rate-limited work queue of
 * `namespace/name` keys fed by informer events, N workers calling the controller's
 * `sync(key)`, errors requeued with per-key backoff (conflicts quietly, other errors
 * logged on their first and every tenth retry).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/replicaset/replica_set.go (Run, worker, processNextWorkItem)
 */
import type { KObject } from '../../api/resource.js';
import { isConflict, isNotFound, isAlreadyExists } from '../../apimachinery/errors.js';
import { keyOf } from '../../client/informer.js';
import { RateLimitingQueue, runWorkers } from './workqueue.js';
import type { Clock } from '../../util/clock.js';

interface ControllerLoopOptions {
  /** controller name for log lines */
  name: string;
  /** concurrent syncs (upstream --concurrent-*-syncs; default 5) */
  workers?: number;
  clock?: Clock;
  sync(key: string): Promise<void>;
  /** error sink (default: console.warn for unexpected errors) */
  onError?(key: string, err: unknown, retries: number): void;
}

export class ControllerLoop {
  readonly queue: RateLimitingQueue;
  private running?: Promise<void>;

  constructor(private readonly opts: ControllerLoopOptions) {
    this.queue = new RateLimitingQueue({ clock: opts.clock });
  }

  /** Queues a key. */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Queues an object's `namespace/name` key. */
  enqueueObj(obj: KObject): void {
    this.queue.add(keyOf(obj));
  }

  /** Queues a key after `ms`. */
  enqueueAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  /** Starts the workers. */
  run(): void {
    if (this.running) return;
    const onError =
      this.opts.onError ??
      ((key: string, err: unknown, retries: number) => {
        if (isConflict(err) || isNotFound(err) || isAlreadyExists(err)) return;
        if (retries % 10 !== 0) return;
        console.warn(`${this.opts.name}: error syncing ${JSON.stringify(key)}: ${err instanceof Error ? err.message : String(err)}`);
      });
    this.running = runWorkers(
      this.queue,
      this.opts.workers ?? 5,
      (k) => this.opts.sync(k),
      (k, e) => onError(k, e, this.queue.numRequeues(k)),
    );
  }

  /** Stops the workers once their current syncs finish. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
  }
}

/** Splits `namespace/name` (or `name`). */
export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return i < 0 ? ['', key] : [key.slice(0, i), key.slice(i + 1)];
}
