import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { UnsupportedError, type Storage } from './interface.js';
import { EtcdStorage, type EtcdStorageOptions } from './etcd/etcd.js';
import { DEFAULT_KEY_ROOT, PrefixedStorage } from './prefixed.js';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite/sqlite.js';

export * from './interface.js';
export { SqliteStorage, type SqliteStorageOptions } from './sqlite/sqlite.js';
export { EtcdStorage, type EtcdStorageOptions } from './etcd/etcd.js';
export { PrefixedStorage, DEFAULT_KEY_ROOT } from './prefixed.js';

/** Options of the embedded SQLite backend. */
export interface OpenSqliteOptions extends Omit<SqliteStorageOptions, 'file'> {
  kind: 'sqlite';
  /** the node's data directory; the database is `<dataDir>/db/state.db` */
  dataDir: string;
}

/** Options of the etcd v3 backend (kube-apiserver's `--etcd-*` flags). */
export interface OpenEtcdOptions extends EtcdStorageOptions {
  kind: 'etcd';
  /** root of every key in etcd (`--etcd-prefix`); default `/registry` */
  prefix?: string;
}

/** Which backend to open, and its settings. */
export type OpenStorageOptions = OpenSqliteOptions | OpenEtcdOptions;

/** Path of the SQLite database under a data directory. */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, 'db', 'state.db');
}

/**
 * Opens the configured storage backend.
 *
 * @throws UnsupportedError for an unknown `kind`
 * @throws StorageError when the backend cannot be opened (e.g. the database is locked by another process, etcd is unreachable)
 */
export async function openStorage(opts: OpenStorageOptions): Promise<Storage> {
  switch (opts.kind) {
    case 'sqlite': {
      const { kind: _kind, dataDir, ...rest } = opts;
      mkdirSync(join(dataDir, 'db'), { recursive: true });
      return SqliteStorage.open({ ...rest, file: sqliteFile(dataDir) });
    }
    case 'etcd': {
      const { kind: _kind, prefix, ...rest } = opts;
      const root = (prefix ?? DEFAULT_KEY_ROOT).replace(/\/+$/, '');
      const s = await EtcdStorage.open(rest);
      return root === DEFAULT_KEY_ROOT ? s : new PrefixedStorage(s, root.startsWith('/') ? root : `/${root}`);
    }
    default:
      throw new UnsupportedError(`storage kind ${(opts as { kind: string }).kind}`);
  }
}
