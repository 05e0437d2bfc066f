import {
  CompactedError,
  FutureRevisionError,
  StorageError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type WatchCallbacks,
  type Watcher,
  type WriteOptions,
} from '../interface.js';
import type { Every } from '../sqlite/compact.js';
import { EtcdClient, etcdError, type EtcdClientOptions } from './client.js';
import { EtcdCompactor } from './compactor.js';
import { LeaseManager } from './lease.js';
import * as read from './read.js';
import { EtcdWatchHub } from './watch.js';
import { saveEtcdSnapshot } from './snapshot.js';
import * as write from './write.js';

/** Options of {@link EtcdStorage.open}. */
export interface EtcdStorageOptions extends EtcdClientOptions {
  /**
   * the periodic compactor's interval (ms, kube-apiserver's `--etcd-compaction-interval`,
   * default 5 min), or `false` for none (another API server or etcd's own
   * `--auto-compaction-*` compacts)
   */
  compactionIntervalMs?: number | false;
  /** drives the compactor's interval (tests inject a manual one); default an unref'd setInterval */
  every?: Every;
  /** called when an automatic compaction fails; default: ignored (the next interval retries) */
  onCompactionError?: (err: Error) => void;
}

/**
 * The etcd v3 storage backend: keys and values are stored as they are given (the
 * API server's `/registry/<resource>/<namespace>/<name>` keys and JSON values), an
 * object's resourceVersion is its key's etcd mod revision, creates / updates /
 * deletes are guarded transactions, watches come from one live etcd watch fanned
 * out in process ({@link EtcdWatchHub}), and a kube-apiserver-style compactor runs
 * every `compactionIntervalMs`.
 *
 * @see https://github.com/kubernetes/apiserver/tree/v0.32.0/pkg/storage/etcd3
 */
export class EtcdStorage implements Storage {
  private readonly ctx: read.ReadContext;
  private readonly hub: EtcdWatchHub;
  private readonly leases: LeaseManager;
  /** the automatic compactor, when enabled */
  readonly compactor: EtcdCompactor | undefined;
  private closed = false;

  private constructor(
    private readonly client: EtcdClient,
    opts: EtcdStorageOptions,
  ) {
    this.ctx = { client, knownCompactRev: 0 };
    this.hub = new EtcdWatchHub(client);
    this.leases = new LeaseManager(client);
    this.compactor =
      opts.compactionIntervalMs === false ? undefined : new EtcdCompactor(client, opts.compactionIntervalMs, (rev) => this.sawCompaction(rev), opts.onCompactionError);
  }

  /**
   * Connects to etcd, reads its current revision and opens the live watch from there,
   * then starts the compactor.
   *
   * @throws StorageError when etcd cannot be reached (within the request timeout) or the TLS files cannot be read
   */
  static async open(opts: EtcdStorageOptions): Promise<EtcdStorage> {
    const client = new EtcdClient(opts);
    const s = new EtcdStorage(client, opts);
    try {
      await s.hub.start(await read.currentRevision(s.ctx));
    } catch (err) {
      client.close();
      throw err instanceof StorageError ? err : etcdError(err);
    }
    s.compactor?.start(opts.every);
    return s;
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageError('etcd storage closed');
  }

  private sawCompaction(revision: number): void {
    this.ctx.knownCompactRev = Math.max(this.ctx.knownCompactRev, revision);
  }

  /**
   * etcd's snapshot of the member this client talks to (Maintenance.Snapshot), written to
   * `file` — the same file `etcdctl snapshot save` writes.
   * @returns its size in bytes and the revision it holds
   */
  snapshot(file: string): Promise<{ size: number; revision: number }> {
    return saveEtcdSnapshot(this.client, file);
  }

  /** {@inheritDoc Storage.currentRevision} */
  async currentRevision(): Promise<number> {
    this.assertOpen();
    return read.currentRevision(this.ctx);
  }

  /** {@inheritDoc Storage.compactedRevision} See {@link read.compactedRevision}. */
  async compactedRevision(): Promise<number> {
    this.assertOpen();
    return read.compactedRevision(this.ctx);
  }

  /** {@inheritDoc Storage.get} */
  async get(key: string, opts?: { revision?: number }): Promise<{ revision: number; kv?: KeyValue }> {
    this.assertOpen();
    return read.get(this.ctx, key, opts?.revision);
  }

  /** {@inheritDoc Storage.list} */
  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    this.assertOpen();
    return read.list(this.ctx, prefix, opts);
  }

  /** {@inheritDoc Storage.count} */
  async count(prefix: string): Promise<{ revision: number; count: number }> {
    this.assertOpen();
    return read.count(this.ctx, prefix);
  }

  /** {@inheritDoc Storage.create} A TTL attaches the key to a (shared) etcd lease, see {@link LeaseManager}. */
  async create(key: string, value: string, opts?: WriteOptions): Promise<KeyValue> {
    this.assertOpen();
    return write.create(this.client, key, value, await this.lease(opts));
  }

  /** {@inheritDoc Storage.update} A TTL attaches the key to a (shared) etcd lease; none detaches it. */
  async update(key: string, value: string, expectedModRevision: number, opts?: WriteOptions): Promise<KeyValue> {
    this.assertOpen();
    return write.update(this.client, key, value, expectedModRevision, await this.lease(opts));
  }

  private async lease(opts: WriteOptions | undefined): Promise<string> {
    return opts?.ttlSeconds && opts.ttlSeconds > 0 ? this.leases.leaseFor(opts.ttlSeconds) : '0';
  }

  /** {@inheritDoc Storage.delete} */
  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertOpen();
    return write.del(this.client, key, expectedModRevision);
  }

  /**
   * {@inheritDoc Storage.watch} A future `afterRevision` is allowed, as in etcd.
   * Whether `afterRevision` is compacted is asked of etcd (a read at that revision).
   */
  async watch(prefix: string, afterRevision: number, cb: WatchCallbacks): Promise<Watcher> {
    this.assertOpen();
    if (afterRevision < this.ctx.knownCompactRev) throw new CompactedError(afterRevision, this.ctx.knownCompactRev);
    const cur = await read.currentRevision(this.ctx);
    if (afterRevision <= cur) {
      // a read at afterRevision fails exactly when etcd compacted past it
      if (afterRevision === 0) {
        const c = await read.compactedRevision(this.ctx);
        if (c > 0) throw new CompactedError(0, c);
      } else {
        await read.get(this.ctx, prefix, afterRevision);
      }
    }
    return this.hub.subscribe(prefix, afterRevision, cb);
  }

  /**
   * Compacts etcd at `revision`: reads below it fail afterwards. A no-op at or below
   * etcd's compacted revision.
   *
   * @throws FutureRevisionError when `revision` is beyond the current revision
   */
  async compact(revision: number): Promise<void> {
    this.assertOpen();
    try {
      await this.client.compact(revision);
    } catch (err) {
      const e = etcdError(err, revision);
      if (e instanceof CompactedError) return;
      if (e instanceof FutureRevisionError) throw new FutureRevisionError(revision, await read.currentRevision(this.ctx));
      throw e;
    }
    this.sawCompaction(revision);
  }

  /** Stops the compactor, ends every watcher (onError with a StorageError) and closes the connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor?.stop();
    this.hub.close();
    this.client.close();
  }
}
