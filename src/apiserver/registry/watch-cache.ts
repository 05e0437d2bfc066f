/**
 * Watch cache for one resource (upstream's Cacher): keeps every live object decoded in
 * memory, fed by one storage watch, and fans events out to API watchers. Lists without
 * pagination and GETs are served from it once it has caught up with the storage
 * revision (consistent reads, as upstream's ConsistentListFromCache).
 *
 * A buffer of recent events serves watches from a recent resourceVersion; older ones
 * fall back to a storage watch (which replays history) or fail with 410 Expired. As
 * upstream's watch cache sizes its history to `eventFreshDuration` (75 s: a client resuming
 * from its last bookmark, sent every minute, is still served from memory), the buffer keeps
 * the events of the last {@link HistoryBounds.windowMs} and at least
 * {@link HistoryBounds.minEvents}, at most {@link HistoryBounds.maxEvents}: older events,
 * and the superseded object versions only they hold, are dropped, also when no new event
 * arrives (a timer runs while the buffer holds more than the minimum). A superseded
 * object's JSON text is dropped with it from the current state (recomputed should a
 * replay need it).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/cacher/cacher.go
 */
import type { Storage, Watcher, WatchEvent as StorageEvent } from '../../storage/interface.js';
import { CachedObject, decodeStored, type Decoder } from './cached-object.js';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent {
  type: CacheEventType;
  /** for DELETED: the last state, with resourceVersion = the deletion revision */
  object: CachedObject;
  prev?: CachedObject;
  rv: number;
}

/** Receives events in revision order; `bookmark(rv)` when idle progress is known. */
export interface CacheListener {
  /** Fast pre-filter by exact field value (e.g. spec.nodeName), or undefined. */
  readonly indexValue?: string;
  onEvent(ev: CacheEvent): void;
}

/** Returns a value for the listener index (e.g. spec.nodeName) of an object. */
export type IndexFunc = (o: CachedObject) => string | undefined;

/**
 * How much event history a watch cache keeps.
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/storage/cacher/watch_cache.go (resizeCacheLocked, eventFreshDuration, defaultLowerBoundCapacity)
 */
export interface HistoryBounds {
  /** events younger than this (ms) are kept (while under maxEvents); upstream's eventFreshDuration, 75 s */
  windowMs: number;
  /** at least this many events are kept, however old; upstream's lower bound, 100 */
  minEvents: number;
  /** at most this many events are kept, however young */
  maxEvents: number;
}

/** The history bounds of every resource (8,192 events at most, as before the time window). */
export const DEFAULT_HISTORY: HistoryBounds = { windowMs: 75_000, minEvents: 100, maxEvents: 8192 };

/** How often a buffer holding more than the minimum drops events that left the window. */
const TRIM_INTERVAL_MS = 10_000;

export class WatchCache {
  private readonly items = new Map<string, CachedObject>();
  private sortedKeys: string[] | undefined;
  /** recent events, oldest first from `head` (slots before it are released) */
  private buffer: (CacheEvent | undefined)[] = [];
  /** when each event of `buffer` was applied (performance.now() ms) */
  private times: number[] = [];
  private head = 0;
  private readonly history: HistoryBounds;
  private trimTimer: ReturnType<typeof setInterval> | undefined;
  private rv = 0;
  /** resourceVersion of the oldest event the buffer can replay from (exclusive lower bound) */
  private oldestRV = 0;
  private readonly listeners = new Set<CacheListener>();
  private readonly indexed = new Map<string, Set<CacheListener>>();
  private waiters: { rv: number; resolve: () => void }[] = [];
  private watcher?: Watcher;
  private readyPromise?: Promise<void>;
  /** set once the initial load finished (sync then skips awaiting it) */
  private loaded = false;
  private failed?: Error;

  constructor(
    private readonly storage: Storage,
    readonly prefix: string,
    private readonly indexFunc?: IndexFunc,
    history: Partial<HistoryBounds> = {},
    private readonly decode: Decoder = decodeStored,
    /** the time events are stamped with (ms, monotonic) */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.history = { ...DEFAULT_HISTORY, ...history };
  }

  /** Loads all objects and starts following storage. Idempotent. */
  start(): Promise<void> {
    if (!this.readyPromise) {
      this.readyPromise = this.load();
      this.readyPromise.then(
        () => {
          this.loaded = true;
        },
        () => undefined,
      );
    }
    return this.readyPromise;
  }

  private async load(): Promise<void> {
    let startAfter: string | undefined;
    let revision = 0;
    for (;;) {
      const res = await this.storage.list(this.prefix, { limit: 5000, startAfter, revision: revision || undefined });
      revision = res.revision;
      for (const kv of res.kvs) this.items.set(kv.key, this.decode(kv.key, kv.value, kv.modRevision));
      if (!res.more || res.kvs.length === 0) break;
      startAfter = res.kvs[res.kvs.length - 1]!.key;
    }
    this.rv = revision;
    this.oldestRV = revision;
    this.sortedKeys = undefined;
    this.watcher = await this.storage.watch(this.prefix, revision, {
      onEvents: (evs) => this.apply(evs),
      onProgress: (rev) => this.progress(rev),
      onError: (err) => {
        this.failed = err;
      },
    });
  }

  stop(): void {
    this.watcher?.stop();
    this.watcher = undefined;
    this.stopTrimming();
  }

  /** The revision the cache reflects. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Oldest resourceVersion a watch may start after and be served from the buffer. */
  get oldestResourceVersion(): number {
    return this.oldestRV;
  }

  get size(): number {
    return this.items.size;
  }

  /** Waits until the cache has applied every write up to `rv`. */
  waitFor(rv: number): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.rv >= rv) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rv, resolve }));
  }

  /** Waits until the cache is as fresh as storage (a consistent read). */
  async sync(): Promise<void> {
    if (!this.loaded) await this.start();
    const cur = await this.storage.currentRevision();
    if (this.failed) throw this.failed;
    if (this.rv < cur) await this.waitFor(cur);
  }

  get(key: string): CachedObject | undefined {
    return this.items.get(key);
  }

  /** All objects whose key starts with `prefix`, in key order. */
  list(prefix: string): CachedObject[] {
    if (!this.sortedKeys) this.sortedKeys = [...this.items.keys()].sort();
    const keys = this.sortedKeys;
    // binary search for the first key >= prefix
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: CachedObject[] = [];
    for (let i = lo; i < keys.length; i++) {
      const k = keys[i]!;
      if (!k.startsWith(prefix)) break;
      out.push(this.items.get(k)!);
    }
    return out;
  }

  /**
   * Events with rv > `afterRV` still in the buffer, or undefined when `afterRV` is older
   * than the buffer's window.
   */
  eventsSince(afterRV: number): CacheEvent[] | undefined {
    this.trim();
    if (afterRV < this.oldestRV) return undefined;
    const out: CacheEvent[] = [];
    for (let i = this.head; i < this.buffer.length; i++) {
      const ev = this.buffer[i]!;
      if (ev.rv > afterRV) out.push(ev);
    }
    return out;
  }

  /** How many events the history holds. */
  get historyLength(): number {
    return this.buffer.length - this.head;
  }

  addListener(l: CacheListener): void {
    if (l.indexValue !== undefined && this.indexFunc) {
      let set = this.indexed.get(l.indexValue);
      if (!set) this.indexed.set(l.indexValue, (set = new Set()));
      set.add(l);
    } else this.listeners.add(l);
  }

  removeListener(l: CacheListener): void {
    if (l.indexValue !== undefined && this.indexFunc) {
      const set = this.indexed.get(l.indexValue);
      set?.delete(l);
      if (set && set.size === 0) this.indexed.delete(l.indexValue);
    } else this.listeners.delete(l);
  }

  get listenerCount(): number {
    let n = this.listeners.size;
    for (const s of this.indexed.values()) n += s.size;
    return n;
  }

  private apply(evs: StorageEvent[]): void {
    for (const e of evs) {
      if (e.kv.modRevision <= this.rv) continue;
      let ev: CacheEvent;
      const prev = this.items.get(e.kv.key);
      if (e.type === 'delete') {
        const last = prev ?? (e.prevKv ? this.decode(e.kv.key, e.prevKv.value, e.prevKv.modRevision) : undefined);
        if (!last) {
          this.rv = e.kv.modRevision;
          continue;
        }
        // the DELETED event carries the last state at the deletion's revision: a copy of
        // its top level and metadata, sharing the rest with `last` (both are immutable)
        const l = last.obj;
        const obj = { ...l, metadata: { ...l.metadata, resourceVersion: String(e.kv.modRevision) } };
        ev = { type: 'DELETED', object: new CachedObject(e.kv.key, obj, e.kv.modRevision), prev: last, rv: e.kv.modRevision };
        this.items.delete(e.kv.key);
        this.sortedKeys = undefined;
        prev?.dropJson();
      } else {
        let cur: CachedObject;
        try {
          cur = this.decode(e.kv.key, e.kv.value, e.kv.modRevision);
        } catch {
          this.rv = e.kv.modRevision;
          continue;
        }
        if (!prev) this.sortedKeys = undefined;
        this.items.set(e.kv.key, cur);
        ev = { type: prev ? 'MODIFIED' : 'ADDED', object: cur, prev, rv: e.kv.modRevision };
        // the superseded version stays only for the history's replays: its text is dropped
        if (prev !== undefined && prev !== cur) prev.dropJson();
      }
      this.rv = e.kv.modRevision;
      this.push(ev);
      this.dispatch(ev);
    }
    this.resolveWaiters();
  }

  private progress(rev: number): void {
    if (rev <= this.rv) return;
    this.rv = rev;
    this.resolveWaiters();
  }

  private resolveWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) w.rv <= this.rv ? w.resolve() : still.push(w);
    this.waiters = still;
  }

  private push(ev: CacheEvent): void {
    this.buffer.push(ev);
    this.times.push(this.now());
    this.trim();
    if (this.trimTimer === undefined && this.historyLength > this.history.minEvents) {
      this.trimTimer = setInterval(() => this.trim(), TRIM_INTERVAL_MS);
      this.trimTimer.unref?.();
    }
  }

  /** Drops the events beyond {@link HistoryBounds} (the oldest first). */
  private trim(): void {
    const { windowMs, minEvents, maxEvents } = this.history;
    const end = this.buffer.length;
    let h = this.head;
    if (end - h > minEvents) {
      const oldest = this.now() - windowMs;
      while (end - h > maxEvents || (end - h > minEvents && this.times[h]! < oldest)) {
        this.oldestRV = this.buffer[h]!.rv;
        this.buffer[h] = undefined;
        h++;
      }
    }
    if (h !== this.head) {
      this.head = h;
      // compact once the released slots are the larger part
      if (h > 1024 && h * 2 > end) {
        this.buffer = this.buffer.slice(h);
        this.times = this.times.slice(h);
        this.head = 0;
      }
    }
    if (this.historyLength <= minEvents) this.stopTrimming();
  }

  private stopTrimming(): void {
    if (this.trimTimer !== undefined) clearInterval(this.trimTimer);
    this.trimTimer = undefined;
  }

  private dispatch(ev: CacheEvent): void {
    for (const l of this.listeners) l.onEvent(ev);
    if (this.indexed.size && this.indexFunc) {
      const a = this.indexFunc(ev.object);
      const b = ev.prev ? this.indexFunc(ev.prev) : undefined;
      if (a !== undefined) {
        const set = this.indexed.get(a);
        if (set) for (const l of set) l.onEvent(ev);
      }
      if (b !== undefined && b !== a) {
        const set = this.indexed.get(b);
        if (set) for (const l of set) l.onEvent(ev);
      }
    }
  }
}
