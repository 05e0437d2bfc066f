/**
 * A Storage decorator that encrypts values of the configured resources on write and
 * decrypts them on read and in watch events (upstream's value transformers in the
 * etcd3 store). Keys and revisions are untouched, so it wraps any backend.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/storage/value/transformer.go
 */
import {
  RevisionMismatchError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type WatchCallbacks,
  type Watcher,
  type WatchEvent,
  type WriteOptions,
} from '../../storage/interface.js';
import type { EncryptionConfig, ProviderChain } from './config.js';

export class EncryptingStorage implements Storage {
  private readonly prefixes: [string, ProviderChain][];
  constructor(
    readonly inner: Storage,
    config: EncryptionConfig,
  ) {
    this.prefixes = [...config.byPrefix.entries()];
  }

  private chain(key: string): ProviderChain | undefined {
    for (const [p, c] of this.prefixes) if (key.startsWith(p)) return c;
    return undefined;
  }

  private enc(key: string, value: string): string {
    const c = this.chain(key);
    return c ? c.encrypt(value) : value;
  }

  private dec<T extends KeyValue | undefined>(kv: T): T {
    if (!kv) return kv;
    const c = this.chain(kv.key);
    return c ? ({ ...kv, value: c.decrypt(kv.value) } as T) : kv;
  }

  /** RevisionMismatchError carries the current value: hand it on decrypted. */
  private decError(e: unknown): unknown {
    return e instanceof RevisionMismatchError ? new RevisionMismatchError(e.key, this.dec(e.current)) : e;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }
  async get(key: string, opts?: { revision?: number }): Promise<{ revision: number; kv?: KeyValue }> {
    const r = await this.inner.get(key, opts);
    return { revision: r.revision, kv: this.dec(r.kv) };
  }
  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const r = await this.inner.list(prefix, opts);
    if (!this.prefixes.some(([p]) => p.startsWith(prefix) || prefix.startsWith(p))) return r;
    return { ...r, kvs: r.kvs.map((kv) => this.dec(kv)) };
  }
  count(prefix: string): Promise<{ revision: number; count: number }> {
    return this.inner.count(prefix);
  }
  async create(key: string, value: string, opts?: WriteOptions): Promise<KeyValue> {
    return { ...(await this.inner.create(key, this.enc(key, value), opts)), value };
  }
  async update(key: string, value: string, expectedModRevision: number, opts?: WriteOptions): Promise<KeyValue> {
    try {
      return { ...(await this.inner.update(key, this.enc(key, value), expectedModRevision, opts)), value };
    } catch (e) {
      throw this.decError(e);
    }
  }
  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    try {
      return this.dec(await this.inner.delete(key, expectedModRevision));
    } catch (e) {
      throw this.decError(e);
    }
  }
  watch(prefix: string, afterRevision: number, cb: WatchCallbacks): Promise<Watcher> {
    return this.inner.watch(prefix, afterRevision, {
      ...cb,
      onEvents: (evs: WatchEvent[]) => cb.onEvents(evs.map((e) => ({ type: e.type, kv: this.dec(e.kv), ...(e.prevKv ? { prevKv: this.dec(e.prevKv) } : {}) }))),
    });
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
