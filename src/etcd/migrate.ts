/**
 * Moving a cluster's state from the embedded SQLite database to etcd, as k3s does on
 * the first `--cluster-init` start over a data dir that has `db/state.db`
 * (`migrateFromSQLite`): every live key is written to etcd, then the database is
 * renamed `state.db.migrated`. Unlike k3s (key order), keys are written in the order of
 * their SQLite revisions, so etcd's revisions keep the order of the objects' last
 * writes (resourceVersions change: clients relist, as after any restore). Events get
 * a lease of `--event-ttl` again.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/etcd/etcd.go (migrateFromSQLite)
 */
import { existsSync, renameSync } from 'node:fs';
import { openStorage, sqliteFile, type OpenEtcdOptions } from '../storage/index.js';
import type { KeyValue, Storage } from '../storage/interface.js';

/** What a migration moved. */
export interface MigrationResult {
  keys: number;
  /** the etcd revision after the last write */
  revision: number;
}

/** Every live key of `s` (pages read at one revision), in revision order. */
async function allKeysByRevision(s: Storage): Promise<KeyValue[]> {
  const kvs: KeyValue[] = [];
  let startAfter: string | undefined;
  let revision: number | undefined;
  for (;;) {
    const page = await s.list('/', { limit: 1000, startAfter, revision });
    revision = page.revision;
    kvs.push(...page.kvs);
    if (!page.more || page.kvs.length === 0) break;
    startAfter = page.kvs[page.kvs.length - 1]!.key;
  }
  return kvs.sort((a, b) => a.modRevision - b.modRevision);
}

/**
 * Copies every live key of `from` into `to` (which must hold no `/registry` key yet), in
 * revision order; Event keys (`/registry/events/…`) with a TTL of `eventTTLSeconds`.
 * @throws Error when `to` is not empty; StorageError when a backend fails
 */
export async function copyStorage(from: Storage, to: Storage, eventTTLSeconds: number): Promise<MigrationResult> {
  const { count } = await to.count('/registry/');
  if (count > 0) throw new Error(`the target etcd already holds ${count} keys under /registry/: migrating into it would mix two clusters`);
  const kvs = await allKeysByRevision(from);
  let revision = 0;
  for (const kv of kvs) {
    const ttl = kv.key.startsWith('/registry/events/') ? { ttlSeconds: eventTTLSeconds } : undefined;
    revision = (await to.create(kv.key, kv.value, ttl)).modRevision;
  }
  return { keys: kvs.length, revision };
}

/**
 * When `<dataDir>/db/state.db` exists: copies it into the etcd of `target` and renames it
 * `state.db.migrated`. A database already migrated (or none) is left alone.
 */
export async function migrateFromSQLite(dataDir: string, target: OpenEtcdOptions, o: { eventTTLSeconds: number; log?: (m: string) => void }): Promise<MigrationResult | undefined> {
  const file = sqliteFile(dataDir);
  if (!existsSync(file)) return undefined;
  o.log?.(`Migrating content from sqlite (${file}) to etcd`);
  const from = await openStorage({ kind: 'sqlite', dataDir, compaction: false });
  let r: MigrationResult;
  try {
    const to = await openStorage({ ...target, compactionIntervalMs: false });
    try {
      r = await copyStorage(from, to, o.eventTTLSeconds);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
  renameSync(file, `${file}.migrated`);
  for (const ext of ['-wal', '-shm']) if (existsSync(file + ext)) renameSync(file + ext, `${file}.migrated${ext}`);
  o.log?.(`Migrated ${r.keys} key${r.keys === 1 ? '' : 's'} from sqlite to etcd (revision ${r.revision}); the database is now ${file}.migrated`);
  return r;
}
