import { StorageError, type KeyValue, type ListOptions, type ListResult, type Storage, type WatchCallbacks, type Watcher, type WriteOptions } from '../interface.js';
import { WriteBatcher } from './batch.js';
import { compact, Compactor, everyUnref, type CompactionOptions, type Every } from './compact.js';
import { Core } from './core.js';
import { count } from './count.js';
import { get } from './get.js';
import { list } from './list.js';
import { openDatabase, type Synchronous } from './schema.js';
import { prepareStatements } from './statements.js';
import { TTLSweeper } from './ttl.js';
import { WatchHub } from './watch.js';

/** Options of {@link SqliteStorage.open}. */
export interface SqliteStorageOptions {
  /** path of the database file (created if missing; its directory must exist) */
  file: string;
  /**
   * Durability of an acknowledged write; default `'normal'` (survives a process
   * crash or kill -9, not a power loss). See {@link Synchronous}.
   */
  synchronous?: Synchronous;
  /** how long opening waits for another process holding the file (ms); default 1000 */
  busyTimeoutMs?: number;
  /** the automatic compactor's settings, or `false` for none; default kine's (5 min, keep 1000 revisions) */
  compaction?: CompactionOptions | false;
  /** drives the compactor's interval (tests inject a manual one); default an unref'd setInterval */
  every?: Every;
  /** called when an automatic compaction fails; default: ignored (the next interval retries) */
  onCompactionError?: (err: Error) => void;
  /** revisions scanned per step while a watcher replays history; default 5000 */
  replayBatchRevisions?: number;
  /** the wall clock for TTLs (ms since the epoch); default Date.now */
  now?: () => number;
  /** how often expired keys are deleted (ms); default 1000 */
  ttlSweepIntervalMs?: number;
  /** drives the TTL sweeper's interval (tests inject a manual one); default an unref'd setInterval */
  ttlEvery?: Every;
}

/**
 * The embedded storage backend: an append-only revision log in one SQLite table
 * (WAL mode), in the manner of k3s-io/kine. The row id is the revision; writes
 * are group-committed once per event-loop turn; the latest row of every key is
 * cached in memory (metadata only) so creates and compare-and-swap need no query;
 * watchers are fanned out in process after commit.
 *
 * A database file has one owner: the connection holds an exclusive lock.
 *
 * @see https://github.com/k3s-io/kine
 */
export class SqliteStorage implements Storage {
  private readonly hub: WatchHub;
  private readonly writer: WriteBatcher;
  /** the automatic compactor, when enabled */
  readonly compactor: Compactor | undefined;
  /** deletes keys whose TTL passed */
  readonly ttlSweeper: TTLSweeper;
  private readonly batchRevisions: number;

  private constructor(
    private readonly core: Core,
    opts: SqliteStorageOptions,
  ) {
    this.hub = new WatchHub(core, opts.replayBatchRevisions ?? 5000);
    this.writer = new WriteBatcher(core, this.hub);
    const c = opts.compaction === false ? undefined : new Compactor(core, opts.compaction ?? {}, opts.onCompactionError);
    this.batchRevisions = (opts.compaction && opts.compaction.batchRevisions) || 1000;
    this.compactor = c;
    c?.start(opts.every);
    this.ttlSweeper = new TTLSweeper(core, this.writer);
    this.ttlSweeper.start(opts.ttlEvery ?? everyUnref, opts.ttlSweepIntervalMs ?? 1000);
  }

  /**
   * Opens (or creates) the database, loads the latest row of every key, and
   * starts the compactor.
   *
   * @throws StorageError when the file cannot be opened or is locked by another process
   */
  static open(opts: SqliteStorageOptions): SqliteStorage {
    const db = openDatabase(opts.file, {
      synchronous: opts.synchronous ?? 'normal',
      busyTimeoutMs: opts.busyTimeoutMs ?? 1000,
    });
    try {
      return new SqliteStorage(new Core(db, prepareStatements(db), opts.now), opts);
    } catch (err) {
      db.close();
      throw new StorageError(`sqlite: cannot load ${opts.file}: ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * An online, consistent copy of the database in `file` (SQLite's backup API: writes go on
   * meanwhile; the copy holds every commit up to one point).
   * @returns the revision the copy holds at least
   */
  async backup(file: string): Promise<{ revision: number }> {
    this.core.assertOpen();
    const revision = this.core.rev;
    await this.core.db.backup(file);
    return { revision };
  }

  /** {@inheritDoc Storage.currentRevision} */
  async currentRevision(): Promise<number> {
    this.core.assertOpen();
    return this.core.rev;
  }

  /** {@inheritDoc Storage.compactedRevision} */
  async compactedRevision(): Promise<number> {
    this.core.assertOpen();
    return this.core.compactRev;
  }

  /** {@inheritDoc Storage.get} See {@link get}. */
  async get(key: string, opts?: { revision?: number }): Promise<{ revision: number; kv?: KeyValue }> {
    return get(this.core, key, opts?.revision);
  }

  /** {@inheritDoc Storage.list} See {@link list}. */
  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return list(this.core, prefix, opts);
  }

  /** {@inheritDoc Storage.count} */
  async count(prefix: string): Promise<{ revision: number; count: number }> {
    return count(this.core, prefix);
  }

  /** {@inheritDoc Storage.create} Group-committed with the other writes of this event-loop turn. */
  create(key: string, value: string, opts?: WriteOptions): Promise<KeyValue> {
    return this.writer.submit('create', key, value, 0, opts?.ttlSeconds ?? 0);
  }

  /** {@inheritDoc Storage.update} Group-committed with the other writes of this event-loop turn. */
  update(key: string, value: string, expectedModRevision: number, opts?: WriteOptions): Promise<KeyValue> {
    return this.writer.submit('update', key, value, expectedModRevision, opts?.ttlSeconds ?? 0);
  }

  /** {@inheritDoc Storage.delete} Group-committed with the other writes of this event-loop turn. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.writer.submit('delete', key, '', expectedModRevision ?? 0);
  }

  /**
   * {@inheritDoc Storage.watch} A future `afterRevision` is allowed, as in etcd. See {@link WatchHub}.
   */
  async watch(prefix: string, afterRevision: number, cb: WatchCallbacks): Promise<Watcher> {
    return this.hub.subscribe(prefix, afterRevision, cb);
  }

  /**
   * Drops history below `revision` (see {@link compact}); a no-op at or below the
   * compacted revision.
   *
   * @throws FutureRevisionError when `revision` is beyond the current revision
   */
  async compact(revision: number): Promise<void> {
    await compact(this.core, revision, this.batchRevisions);
  }

  /**
   * Commits queued writes, stops the compactor, ends every watcher (onError with a
   * StorageError) and closes the database. Idempotent.
   */
  async close(): Promise<void> {
    if (this.core.closed) return;
    this.writer.flush(true);
    this.core.closed = true;
    this.compactor?.stop();
    this.ttlSweeper.stop();
    this.hub.failAll(new StorageError('sqlite storage closed'));
    this.core.db.close();
  }
}
