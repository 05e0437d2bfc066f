/**
 * A shared informer: list + watch one resource (optionally one namespace, label and
 * field selector), keep an in-memory store keyed `namespace/name`, and tell handlers
 * about adds, updates and deletes. Re-lists when the watch ends with 410 Expired,
 * resumes from the last resourceVersion otherwise.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/tools/cache/shared_informer.go
 */
import type { KObject } from '../api/resource.js';
import { StatusError } from '../apimachinery/errors.js';
import { type Clock, realClock, type TimerHandle } from '../util/clock.js';
import type { Client, ResourceRef, WatchHandle } from './types.js';

interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** page size of the initial list (0 = no paging); default 500 */
  pageSize?: number;
  /** ms to wait before retrying after an error; default 1000 */
  retryDelayMs?: number;
  /** the clock retry timers run on (default: the process clock) */
  clock?: Clock;
  /**
   * Applied to every object the informer receives (listed, added, modified, deleted)
   * before it is stored and handed to the handlers (client-go SharedIndexInformer.SetTransform);
   * returns the object to keep, e.g. the same one without fields nobody reads.
   */
  transform?: (obj: KObject) => KObject;
}

interface InformerHandlers<T extends KObject> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T): void;
}

/** `namespace/name` or `name` for cluster-scoped objects (upstream MetaNamespaceKeyFunc). */
export function keyOf(obj: KObject): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? '');
}

export class Informer<T extends KObject = KObject> {
  private readonly items = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private watchHandle?: WatchHandle;
  private stopped = false;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private lastRV = '';
  private retryTimer?: TimerHandle;
  private readonly clock: Clock;

  constructor(
    private readonly client: Client,
    readonly ref: ResourceRef,
    private readonly opts: InformerOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
  }

  /** Registers handlers; objects already in the store are replayed as adds. */
  addEventHandler(h: InformerHandlers<T>): void {
    this.handlers.push(h);
    if (h.add) for (const o of this.items.values()) h.add(o);
  }

  /** Starts list+watch. Idempotent. */
  start(): void {
    if (this.watchHandle || this.retryTimer) return;
    this.stopped = false;
    void this.listAndWatch();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.watchHandle?.stop();
    this.watchHandle = undefined;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been loaded into the store. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  getByName(namespace: string, name: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  get size(): number {
    return this.items.size;
  }

  /** The resourceVersion the store reflects. */
  get resourceVersion(): string {
    return this.lastRV;
  }

  private async listAndWatch(): Promise<void> {
    try {
      await this.relist();
      if (!this.synced) {
        this.synced = true;
        for (const w of this.syncWaiters.splice(0)) w();
      }
      this.startWatch();
    } catch {
      this.scheduleRetry();
    }
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    this.watchHandle = undefined;
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      void this.listAndWatch();
    }, this.opts.retryDelayMs ?? 1000);
  }

  private async relist(): Promise<void> {
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv = '';
    do {
      const l = await this.client.list<T>(this.ref, this.opts.namespace ?? '', {
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        limit: this.opts.pageSize ?? 500,
        continue: cont,
      });
      const tf = this.opts.transform as ((o: T) => T) | undefined;
      for (const o of l.items) fresh.set(keyOf(o), tf === undefined ? o : tf(o));
      cont = l.metadata.continue || undefined;
      rv = l.metadata.resourceVersion ?? rv;
    } while (cont);
    if (this.stopped) return;
    // Diff against the current store (replace semantics, like DeltaFIFO.Replace).
    for (const [k, old] of this.items) {
      if (!fresh.has(k)) {
        this.items.delete(k);
        for (const h of this.handlers) h.delete?.(old);
      }
    }
    for (const [k, o] of fresh) {
      const old = this.items.get(k);
      this.items.set(k, o);
      if (!old) for (const h of this.handlers) h.add?.(o);
      else if (old.metadata?.resourceVersion !== o.metadata?.resourceVersion) for (const h of this.handlers) h.update?.(old, o);
    }
    this.lastRV = rv;
  }

  private startWatch(): void {
    if (this.stopped) return;
    let expired = false;
    const handle = this.client.watch<T>(
      this.ref,
      this.opts.namespace ?? '',
      {
        resourceVersion: this.lastRV,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        allowWatchBookmarks: true,
      },
      (ev) => {
        if (this.stopped) return;
        const tf = this.opts.transform as ((o: T) => T) | undefined;
        const o = tf === undefined || ev.type === 'BOOKMARK' || ev.type === 'ERROR' ? ev.object : tf(ev.object);
        const rv = o.metadata?.resourceVersion;
        switch (ev.type) {
          case 'ADDED':
          case 'MODIFIED': {
            const k = keyOf(o);
            const old = this.items.get(k);
            this.items.set(k, o);
            if (old) for (const h of this.handlers) h.update?.(old, o);
            else for (const h of this.handlers) h.add?.(o);
            break;
          }
          case 'DELETED': {
            const k = keyOf(o);
            const old = this.items.get(k);
            this.items.delete(k);
            for (const h of this.handlers) h.delete?.(old ?? o);
            break;
          }
          case 'BOOKMARK':
            break;
          case 'ERROR': {
            const st = o as unknown as { code?: number };
            if (st.code === 410) expired = true;
            return;
          }
        }
        if (rv) this.lastRV = rv;
      },
    );
    this.watchHandle = handle;
    void handle.done.then(
      () => this.onWatchEnd(expired),
      (e: unknown) => this.onWatchEnd(expired || (e instanceof StatusError && e.code === 410)),
    );
  }

  private onWatchEnd(expired: boolean): void {
    if (this.stopped) return;
    this.watchHandle = undefined;
    if (expired) {
      void this.listAndWatch();
      return;
    }
    // Resume from the last seen resourceVersion after a short pause.
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.startWatch();
    }, 100);
  }
}
