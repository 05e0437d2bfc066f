/**
 * `k8ts etcd-snapshot save|ls|prune|delete|restore`, as k3s' command, for both backends.
 *
 * - `save` asks the running server (`POST /db/snapshot` with the admin kubeconfig) to
 *   snapshot its storage: SQLite through the online backup API, etcd through
 *   Maintenance.Snapshot.
 * - `ls`, `prune`, `delete` work on the snapshot directory.
 * - `restore` (server stopped) puts a SQLite snapshot back as the data dir's database,
 *   keeping the previous one beside it.
 *
 * @see https://docs.k3s.io/cli/etcd-snapshot
 */
import { copyFileSync, existsSync, openSync, readFileSync, readSync, closeSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { hostname } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { Command } from 'commander';
import { parse } from 'yaml';
import { sqliteFile } from '../storage/index.js';
import { openDatabase } from '../storage/sqlite/schema.js';
import { defaultSnapshotDir, formatSnapshotTable, listSnapshots, ON_DEMAND_PREFIX, pruneSnapshots } from './snapshots.js';

interface Kubeconfig {
  clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
}

const b64 = (s?: string): string | undefined => (s ? Buffer.from(s, 'base64').toString('utf8') : undefined);

/** POSTs `body` to `path` of the server in `kubeconfig` with its client certificate; resolves with the status and the parsed reply. */
function postWithKubeconfig(kubeconfig: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
  const cluster = kc.clusters?.[0]?.cluster;
  const user = kc.users?.[0]?.user;
  if (!cluster?.server) throw new Error(`${kubeconfig}: no cluster server`);
  const url = new URL(path, cluster.server);
  const data = JSON.stringify(body);
  return new Promise((res, rej) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca: b64(cluster['certificate-authority-data']),
        cert: b64(user?.['client-certificate-data']),
        key: b64(user?.['client-key-data']),
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) },
      },
      (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => {
          try {
            res({ status: r.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
          } catch {
            res({ status: r.statusCode ?? 0, body: { message: text.trim() } });
          }
        });
      },
    );
    req.on('error', rej);
    req.end(data);
  });
}

/** Is `file` a SQLite database (its 16-byte header)? */
function isSqliteFile(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(16);
    readSync(fd, b, 0, 16, 0);
    return b.toString('latin1') === 'SQLite format 3\0';
  } finally {
    closeSync(fd);
  }
}

/**
 * Puts SQLite snapshot `snapshot` back as the database of `dataDir` (server stopped).
 * @returns the path the previous database was moved to (undefined when there was none)
 * @throws Error when the database is in use (a server runs on the data dir) or the file is not a SQLite snapshot
 */
export function restoreSqliteSnapshot(snapshot: string, dataDir: string, nowMs = Date.now()): string | undefined {
  if (!isSqliteFile(snapshot)) {
    throw new Error(
      `${snapshot} is not a SQLite snapshot; an etcd snapshot is restored with \`etcdctl snapshot restore ${snapshot} --data-dir <new dir>\` and an etcd started on that directory (k8ts has no managed etcd yet)`,
    );
  }
  const db = sqliteFile(dataDir);
  let old: string | undefined;
  if (existsSync(db)) {
    // the server holds the database with an exclusive lock: opening it here fails while one runs
    try {
      openDatabase(db, { synchronous: 'normal', busyTimeoutMs: 0 }).close();
    } catch (e) {
      throw new Error(`the database ${db} is in use (is a k8ts server running on ${dataDir}? stop it first): ${(e as Error).message}`);
    }
    old = `${db}.old-${Math.floor(nowMs / 1000)}`;
    renameSync(db, old);
    for (const ext of ['-wal', '-shm']) if (existsSync(db + ext)) renameSync(db + ext, old + ext);
  }
  copyFileSync(snapshot, `${db}.restoring`);
  renameSync(`${db}.restoring`, db);
  return old;
}

/** The `etcd-snapshot` command and its subcommands. */
export function etcdSnapshotCommand(): Command {
  const cmd = new Command('etcd-snapshot').description('save, list, prune, delete and restore snapshots of the cluster storage (SQLite or etcd)');
  const common = (c: Command): Command =>
    c
      .option('--data-dir <dir>', "the server's data directory", './data')
      .option('--etcd-snapshot-dir <dir>', 'directory of the snapshots (default <data-dir>/db/snapshots)')
      .option('--node-name <name>', "the server's node name (part of snapshot names)", hostname().toLowerCase());
  const dirOf = (o: { dataDir: string; etcdSnapshotDir?: string }): string => (o.etcdSnapshotDir ? resolve(o.etcdSnapshotDir) : defaultSnapshotDir(o.dataDir));

  common(cmd.command('save'))
    .description('take a snapshot now (the running server writes it)')
    .option('--name <prefix>', 'snapshot name prefix', ON_DEMAND_PREFIX)
    .option('--kubeconfig <file>', 'admin kubeconfig of the server (default <data-dir>/kubeconfig.yaml)')
    .action(async (o: { dataDir: string; name: string; kubeconfig?: string }) => {
      const r = await postWithKubeconfig(o.kubeconfig ?? join(o.dataDir, 'kubeconfig.yaml'), '/db/snapshot', { name: o.name });
      if (r.status !== 200) {
        console.error(`error: ${String(r.body.message ?? `HTTP ${r.status}`)}`);
        process.exit(1);
      }
      console.log(`Snapshot ${String(r.body.name)} saved.`);
    });

  common(cmd.command('ls').alias('list'))
    .description('list the snapshots')
    .action((o: { dataDir: string; etcdSnapshotDir?: string }) => {
      console.log(formatSnapshotTable(listSnapshots(dirOf(o))));
    });

  common(cmd.command('prune'))
    .description('delete the oldest snapshots of a name prefix beyond the retention')
    .option('--name <prefix>', 'snapshot name prefix', ON_DEMAND_PREFIX)
    .option('--snapshot-retention <n>', 'snapshots to keep', (v) => parseInt(v, 10), 5)
    .action((o: { dataDir: string; etcdSnapshotDir?: string; name: string; nodeName: string; snapshotRetention: number }) => {
      for (const n of pruneSnapshots(dirOf(o), o.name, o.nodeName, o.snapshotRetention)) console.log(`Removing snapshot ${n}`);
    });

  common(cmd.command('delete').alias('rm'))
    .description('delete snapshots by name')
    .argument('<names...>')
    .action((names: string[], o: { dataDir: string; etcdSnapshotDir?: string }) => {
      const dir = dirOf(o);
      for (const n of names) {
        if (basename(n) !== n || !existsSync(join(dir, n))) {
          console.error(`error: snapshot ${n} not found in ${dir}`);
          process.exitCode = 1;
          continue;
        }
        rmSync(join(dir, n));
        console.log(`Removing snapshot ${n}`);
      }
    });

  common(cmd.command('restore'))
    .description("restore a snapshot as the data dir's database (stop the server first; the old database is kept beside it)")
    .argument('<snapshot>', 'a snapshot name in the snapshot directory, or a path')
    .action((snap: string, o: { dataDir: string; etcdSnapshotDir?: string }) => {
      const file = isAbsolute(snap) || snap.includes('/') ? resolve(snap) : join(dirOf(o), snap);
      if (!existsSync(file)) {
        console.error(`error: snapshot ${snap} not found (${file})`);
        process.exit(1);
      }
      try {
        const old = restoreSqliteSnapshot(file, resolve(o.dataDir));
        console.log(`Restored ${basename(file)} into ${sqliteFile(resolve(o.dataDir))}${old ? `; the previous database is ${old}` : ''}. Start the server now.`);
      } catch (e) {
        console.error(`error: ${(e as Error).message}`);
        process.exit(1);
      }
    });
  return cmd;
}
