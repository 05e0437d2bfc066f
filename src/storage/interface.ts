/**
 * The storage contract every backend implements (embedded SQLite, real etcd v3).
 * Modelled on k3s-io/kine's server/types.go and etcd's KV/Watch semantics:
 * one global, monotonically increasing revision; every write returns the revision it
 * created; an object's resourceVersion is its key's modRevision.
 *
 * Keys look like `/registry/pods/<namespace>/<name>`; values are opaque strings
 * (the API server stores JSON). Backends never parse values.
 *
 * Errors: backends throw only the sentinel errors below; the API server's registry
 * translates them into metav1.Status errors (NotFound, AlreadyExists, Conflict, Expired).
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/server/types.go
 * @see https://etcd.io/docs/v3.5/learning/api/
 */

/** One key at one revision. */
export interface KeyValue {
  key: string;
  value: string;
  /** revision at which the key was (last) created */
  createRevision: number;
  /** revision of the last write to the key; the object's resourceVersion */
  modRevision: number;
}

/** A change seen by a watcher. For `delete`, `kv.modRevision` is the deletion's revision and `kv.value` the last value. */
export interface WatchEvent {
  type: 'create' | 'update' | 'delete';
  kv: KeyValue;
  /** the previous value (for update and delete) */
  prevKv?: KeyValue;
}

export interface ListOptions {
  /** read at this revision (0/undefined = latest). Throws CompactedError if compacted. */
  revision?: number;
  /** max number of keys returned (0/undefined = all) */
  limit?: number;
  /** return keys strictly greater than this key (for pagination) */
  startAfter?: string;
}

export interface ListResult {
  /** the revision the list was read at */
  revision: number;
  kvs: KeyValue[];
  /** true when more keys exist after the last returned one */
  more: boolean;
  /** number of keys after the returned ones (when `more`) */
  remaining: number;
}

/** Options of a create or update. */
export interface WriteOptions {
  /**
   * The key expires this many seconds after this write: the backend then deletes it
   * as a normal delete (watchers see a delete event), unless it was written again
   * meanwhile. etcd: a lease; SQLite: a sweeper. A later write without a TTL keeps
   * the key for good. Used for Events (kube-apiserver's `--event-ttl`).
   */
  ttlSeconds?: number;
}

export interface Watcher {
  /** stop delivering events; idempotent */
  stop(): void;
}

/**
 * Delivers batches of events in revision order. `onError` is called once if the
 * watch breaks (e.g. compacted while catching up); no events follow it.
 */
export interface WatchCallbacks {
  onEvents(events: WatchEvent[]): void;
  onError?(err: Error): void;
  /**
   * Progress notification (etcd's progress notify): every event under the watched
   * prefix up to `revision` has been delivered, even if there were none. Lets caches
   * know they are as fresh as the store when other prefixes are written.
   */
  onProgress?(revision: number): void;
}

export interface Storage {
  /** The latest revision of the store (0 for an empty store). */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable (everything below was compacted). */
  compactedRevision(): Promise<number>;

  /** Reads one key; `kv` undefined when absent. `revision` is the store revision the read saw. */
  get(key: string, opts?: { revision?: number }): Promise<{ revision: number; kv?: KeyValue }>;

  /** Lists keys starting with `prefix` in key order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;

  /** Number of live keys under `prefix`. */
  count(prefix: string): Promise<{ revision: number; count: number }>;

  /** Creates `key`; throws KeyExistsError if it exists. Returns the stored kv (modRevision = new revision). */
  create(key: string, value: string, opts?: WriteOptions): Promise<KeyValue>;

  /**
   * Compare-and-swap update: succeeds only when the key's current modRevision equals
   * `expectedModRevision`. Throws KeyNotFoundError when absent, RevisionMismatchError
   * (carrying the current kv) when the revision differs.
   */
  update(key: string, value: string, expectedModRevision: number, opts?: WriteOptions): Promise<KeyValue>;

  /**
   * Deletes `key`. With `expectedModRevision`, only if it matches (RevisionMismatchError
   * otherwise). Throws KeyNotFoundError when absent. Returns the deleted kv with
   * `modRevision` set to the deletion's revision.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;

  /**
   * Watches keys with `prefix` for changes strictly after `afterRevision`
   * (events with modRevision > afterRevision). History since then is replayed first,
   * without gaps or duplicates. Throws CompactedError synchronously-or-rejected when
   * `afterRevision` < compactedRevision().
   */
  watch(prefix: string, afterRevision: number, cb: WatchCallbacks): Promise<Watcher>;

  /** Drops history at revisions < `revision` (live keys are kept). */
  compact(revision: number): Promise<void>;

  /** Releases resources; further calls fail. */
  close(): Promise<void>;
}

/** Base class of storage sentinel errors. */
export class StorageError extends Error {}

export class KeyNotFoundError extends StorageError {
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
    this.name = 'KeyNotFoundError';
  }
}

export class KeyExistsError extends StorageError {
  constructor(readonly key: string) {
    super(`key exists: ${key}`);
    this.name = 'KeyExistsError';
  }
}

export class RevisionMismatchError extends StorageError {
  constructor(
    readonly key: string,
    readonly current: KeyValue,
  ) {
    super(`revision mismatch for ${key}: current ${current.modRevision}`);
    this.name = 'RevisionMismatchError';
  }
}

/** The requested revision is older than the compacted revision. */
export class CompactedError extends StorageError {
  constructor(
    readonly requested: number,
    readonly compacted: number,
  ) {
    super(`required revision ${requested} has been compacted (compacted: ${compacted})`);
    this.name = 'CompactedError';
  }
}

/** The requested revision is newer than the store's current revision. */
export class FutureRevisionError extends StorageError {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`required revision ${requested} is a future revision (current: ${current})`);
    this.name = 'FutureRevisionError';
  }
}

/** The backend does not support an option (kine rejects rather than ignores). */
export class UnsupportedError extends StorageError {
  constructor(what: string) {
    super(`unsupported: ${what}`);
    this.name = 'UnsupportedError';
  }
}
