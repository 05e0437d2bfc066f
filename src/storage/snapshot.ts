/**
 * A snapshot of a storage backend in a file (`k8ts etcd-snapshot save`, scheduled
 * snapshots): SQLite's online backup (a consistent database file taken while the server
 * writes) or etcd's Maintenance.Snapshot (the file `etcdctl snapshot save` writes).
 */
import { statSync } from 'node:fs';
import { EtcdStorage } from './etcd/etcd.js';
import { UnsupportedError, type Storage } from './interface.js';
import { PrefixedStorage } from './prefixed.js';
import { SqliteStorage } from './sqlite/sqlite.js';

/** What a snapshot holds: the backend it came from, its size and the revision it holds (at least). */
export interface SnapshotInfo {
  backend: 'sqlite' | 'etcd';
  size: number;
  revision: number;
}

/**
 * Writes a snapshot of `storage` (an opened backend, possibly under a key prefix) to `file`.
 * @throws UnsupportedError for a backend without snapshots; StorageError when the backend fails
 */
export async function saveSnapshot(storage: Storage, file: string): Promise<SnapshotInfo> {
  let s = storage;
  while (s instanceof PrefixedStorage) s = s.inner;
  if (s instanceof SqliteStorage) {
    const { revision } = await s.backup(file);
    return { backend: 'sqlite', size: statSync(file).size, revision };
  }
  if (s instanceof EtcdStorage) return { backend: 'etcd', ...(await s.snapshot(file)) };
  throw new UnsupportedError('snapshots of this storage backend');
}
