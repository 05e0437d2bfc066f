import Database from 'better-sqlite3';
import { StorageError } from '../interface.js';

/**
 * The on-disk layout: kine's single append-only log table plus a tiny metadata
 * table. Every write appends one row; `id` is the cluster revision (and the
 * object's resourceVersion). `UNIQUE(name, prev_revision)` is the compare-and-swap
 * guard: two writers that both saw revision N of a key cannot both append a row
 * whose `prev_revision` is N.
 *
 * Columns, per row:
 * - `name`            the key (`/registry/<resource>/<ns>/<name>`)
 * - `created`         1 when the row creates the key (first write, or first after a delete)
 * - `deleted`         1 when the row is a tombstone
 * - `create_revision` revision at which the key was created (the row's own id for creates)
 * - `prev_revision`   id of the key's previous row (0 when there is none)
 * - `value`           the value written (tombstones keep the last value)
 * - `old_value`       the previous row's value (for watch `prevKv`) on tombstones; NULL on updates
 *                     (the previous row has it; history reads it from there)
 *
 * The (name, id) index carries `deleted` too, so "is this the key's live row at
 * revision R" (lists, counts) is answered from the index alone, without reading
 * value pages.
 *
 * `kine_meta` holds `compact_rev` (the persisted compacted revision); kine keeps
 * that in a magic `compact_rev_key` row instead, which every query must then skip.
 *
 * `kine_ttl` holds the keys written with a TTL (Events): the revision written with it
 * and when it expires (ms since the epoch). kine keeps the TTL in a `lease` column of
 * the log; a side table keeps the log's rows unchanged and finds expired keys by index.
 * Databases made before it existed get it when opened (the statement is idempotent).
 *
 * @see https://github.com/k3s-io/kine/blob/master/pkg/drivers/sqlite/sqlite.go
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT,
  old_value TEXT
);
CREATE INDEX IF NOT EXISTS kine_name_id_index ON kine (name, id, deleted);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
CREATE TABLE IF NOT EXISTS kine_meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kine_ttl (
  name TEXT PRIMARY KEY,
  revision INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kine_ttl_expires_index ON kine_ttl (expires_at);
`;

/** Schema version stored in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;

/**
 * `normal`: WAL + synchronous=NORMAL. A commit returns once its WAL frames are
 * written to the OS (no fsync); they survive a crash or kill -9 of the process,
 * because the kernel still holds them. A power loss or kernel crash can lose the
 * transactions committed since the last checkpoint, never corrupt the database.
 * `full`: synchronous=FULL, one fsync of the WAL per commit (per write batch):
 * also durable against power loss, at the price of blocking the event loop for
 * an fsync on every batch.
 *
 * @see https://www.sqlite.org/pragma.html#pragma_synchronous
 * @see https://www.sqlite.org/wal.html#performance_considerations
 */
export type Synchronous = 'normal' | 'full';

/**
 * Page size of new databases (bytes). A stored pod is ~2 KB, so with SQLite's default
 * 4 KiB pages a write batch dirties about one page per object, and every dirty page
 * costs two `pwrite`s into the WAL (frame header, page) and a `pread` + `pwrite` at
 * checkpoint. 16 KiB pages carry the same bytes in a quarter of the frames: about a
 * third less CPU per create (measured with bench/storage.ts), the same durability.
 *
 * @see https://www.sqlite.org/pragma.html#pragma_page_size
 */
export const PAGE_SIZE = 16384;

/** SQLite's page cache of the connection (KiB). */
export const PAGE_CACHE_KIB = 16384;

/** WAL size (bytes) at which a commit checkpoints it into the database file. */
export const WAL_CHECKPOINT_BYTES = 16 * 1024 * 1024;

export interface OpenDatabaseOptions {
  synchronous: Synchronous;
  /** how long opening waits for another process' lock before failing (ms) */
  busyTimeoutMs: number;
}

/**
 * Opens (creating if needed) the database file and takes its lock for the life of
 * the connection (`locking_mode=EXCLUSIVE`): the backend keeps the latest row of
 * every key in memory, so it must be the only writer. A second process opening the
 * same file fails with a StorageError instead of silently diverging.
 *
 * @throws StorageError when the file is locked by another process or cannot be opened
 */
export function openDatabase(file: string, opts: OpenDatabaseOptions): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { timeout: opts.busyTimeoutMs });
    // Exclusive locking must precede WAL so the wal-index lives in heap memory, not a -shm file.
    db.pragma('locking_mode = EXCLUSIVE');
    // A new database gets PAGE_SIZE pages (an existing one keeps its own: WAL mode
    // cannot change it). This must precede the switch to WAL.
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // Checkpoint every ~16 MiB of WAL instead of SQLite's default of 1000 frames.
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`wal_autocheckpoint = ${Math.max(1000, Math.floor(WAL_CHECKPOINT_BYTES / pageSize))}`);
    db.pragma('journal_size_limit = 67108864');
    // 16 MiB of page cache (was 64 MiB): the latest row of every key is in memory (Latest)
    // and the watch cache serves reads, so pages come mostly from the OS page cache anyway;
    // the page cache is RSS of the server (measured: -48 to -63 MB at 5,000 pods, same CPU).
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    db.pragma('temp_store = MEMORY');
    // Take the exclusive lock now, so a second opener fails here and not on its first write.
    db.exec('BEGIN EXCLUSIVE');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new StorageError(`sqlite: ${file} has schema version ${version}, newer than ${SCHEMA_VERSION}`);
    }
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof StorageError) throw err;
    if (err instanceof Database.SqliteError && err.code === 'SQLITE_BUSY') {
      throw new StorageError(`sqlite: ${file} is locked by another process`, { cause: err });
    }
    throw new StorageError(`sqlite: cannot open ${file}: ${(err as Error).message}`, { cause: err });
  }
}
