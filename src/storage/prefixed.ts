import {
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type WatchCallbacks,
  type WatchEvent,
  type Watcher,
  type WriteOptions,
} from './interface.js';

/** kube-apiserver's default `--etcd-prefix`: the root of every key the API server writes. */
export const DEFAULT_KEY_ROOT = '/registry';

/**
 * A Storage whose keys under `/registry` live under another root in the backend
 * (kube-apiserver's `--etcd-prefix`, e.g. `/k8ts-a` so that two clusters share one
 * etcd): `/registry/pods/default/x` is stored as `/k8ts-a/pods/default/x`. Keys, list
 * and watch prefixes are rewritten on the way in and back on the way out; revisions
 * are untouched. Keys outside `/registry` pass unchanged.
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-apiserver/ (--etcd-prefix)
 */
export class PrefixedStorage implements Storage {
  constructor(
    readonly inner: Storage,
    /** the root in the backend, without a trailing slash, e.g. `/k8ts-a` */
    private readonly root: string,
  ) {}

  private in(key: string): string {
    return key === DEFAULT_KEY_ROOT || key.startsWith(`${DEFAULT_KEY_ROOT}/`) ? this.root + key.slice(DEFAULT_KEY_ROOT.length) : key;
  }

  private out(key: string): string {
    return key === this.root || key.startsWith(`${this.root}/`) ? DEFAULT_KEY_ROOT + key.slice(this.root.length) : key;
  }

  private kv(kv: KeyValue): KeyValue {
    return { ...kv, key: this.out(kv.key) };
  }

  private event(ev: WatchEvent): WatchEvent {
    return ev.prevKv ? { type: ev.type, kv: this.kv(ev.kv), prevKv: this.kv(ev.prevKv) } : { type: ev.type, kv: this.kv(ev.kv) };
  }

  /** The same sentinel error, naming the caller's key. */
  private err(e: unknown): unknown {
    if (e instanceof RevisionMismatchError) return new RevisionMismatchError(this.out(e.key), this.kv(e.current));
    if (e instanceof KeyExistsError) return new KeyExistsError(this.out(e.key));
    if (e instanceof KeyNotFoundError) return new KeyNotFoundError(this.out(e.key));
    return e;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async get(key: string, opts?: { revision?: number }): Promise<{ revision: number; kv?: KeyValue }> {
    const r = await this.inner.get(this.in(key), opts);
    return r.kv ? { revision: r.revision, kv: this.kv(r.kv) } : r;
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const o = opts?.startAfter !== undefined ? { ...opts, startAfter: this.in(opts.startAfter) } : opts;
    const r = await this.inner.list(this.in(prefix), o);
    return { ...r, kvs: r.kvs.map((kv) => this.kv(kv)) };
  }

  count(prefix: string): Promise<{ revision: number; count: number }> {
    return this.inner.count(this.in(prefix));
  }

  async create(key: string, value: string, opts?: WriteOptions): Promise<KeyValue> {
    return this.kv(await this.inner.create(this.in(key), value, opts).catch((e: unknown) => Promise.reject(this.err(e))));
  }

  async update(key: string, value: string, expectedModRevision: number, opts?: WriteOptions): Promise<KeyValue> {
    return this.kv(await this.inner.update(this.in(key), value, expectedModRevision, opts).catch((e: unknown) => Promise.reject(this.err(e))));
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.kv(await this.inner.delete(this.in(key), expectedModRevision).catch((e: unknown) => Promise.reject(this.err(e))));
  }

  watch(prefix: string, afterRevision: number, cb: WatchCallbacks): Promise<Watcher> {
    return this.inner.watch(this.in(prefix), afterRevision, {
      onEvents: (events) => cb.onEvents(events.map((ev) => this.event(ev))),
      onError: cb.onError && ((err) => cb.onError!(err)),
      onProgress: cb.onProgress && ((rev) => cb.onProgress!(rev)),
    });
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
