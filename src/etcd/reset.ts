/**
 * `k8ts server --cluster-reset [--cluster-reset-restore-path <snapshot>]`, as k3s: the
 * server's etcd member becomes a new single-member cluster — from its own data (etcd's
 * `force-new-cluster`: every other member is dropped, the data stays) or from an etcd
 * snapshot (`etcdutl snapshot restore`, `etcdctl snapshot restore` where etcdutl is
 * missing as in etcd 3.4; the old data is moved to `<data-dir>/etcd-old-<unix seconds>`).
 * The member gets a new name, is started once until healthy, and stopped; the server
 * then exits and is started again without the flag. The other servers' members must be
 * deleted (`<data-dir>/etcd`) before they rejoin.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/etcd/etcd.go (Reset, Restore)
 * @see https://docs.k3s.io/datastore/backup-restore
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '../cri/containerd/supervisor.js';
import { etcdDir, type EtcdPorts, healthURL, isInitialized, type MemberConfig, memberName, peerURL, writeEtcdConfig } from './config.js';
import { memberClient } from './join.js';
import { ensureEtcdPKI } from './pki.js';
import { startEtcdProcess } from './supervisor.js';

/** What the user is told once the reset is done (k3s' words, this layout's paths). */
export const RESET_DONE_MESSAGE =
  'Managed etcd cluster membership has been reset, restart without --cluster-reset flag now. Backup and delete <data-dir>/etcd on each peer etcd server and rejoin the nodes.';

export interface ClusterResetOptions {
  dataDir: string;
  nodeName: string;
  address: string;
  ports: EtcdPorts;
  extraArgs?: Record<string, string>;
  /** an etcd snapshot file to restore first */
  restorePath?: string;
  healthTimeoutMs?: number;
  log?: (message: string) => void;
}

/** True when `file` starts with SQLite's header (a k8ts SQLite snapshot, not an etcd one). */
function isSQLite(file: string): boolean {
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
 * Restores `file` as the data of member `m` (its `member/` directory), the old data moved aside.
 * @throws Error when the restore tool fails
 */
function restoreSnapshot(file: string, m: MemberConfig, dataDir: string, log: (s: string) => void): void {
  const tool = findExecutable('etcdutl') ? 'etcdutl' : 'etcdctl';
  const tmp = join(dataDir, `etcd-restore-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const r = spawnSync(
    tool,
    ['snapshot', 'restore', file, `--data-dir=${tmp}`, `--name=${m.name}`, `--initial-cluster=${m.name}=${peerURL(m)}`, `--initial-advertise-peer-urls=${peerURL(m)}`],
    { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } },
  );
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`${tool} snapshot restore ${file} failed (${r.status ?? r.signal}): ${(r.stderr || r.error?.message || '').trim()}`);
  }
  const old = join(m.dataDir, 'member');
  if (existsSync(old)) {
    const aside = join(dataDir, `etcd-old-${Math.floor(Date.now() / 1000)}`);
    mkdirSync(aside, { recursive: true, mode: 0o700 });
    renameSync(old, join(aside, 'member'));
    log(`The previous etcd data is in ${aside}`);
  }
  mkdirSync(m.dataDir, { recursive: true, mode: 0o700 });
  renameSync(join(tmp, 'member'), old);
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * Resets the member of `o.dataDir` to a new single-member cluster (see the module doc).
 * Resolves with the new member's name once it ran healthy as the only member.
 * @throws Error for a data dir without etcd data and no snapshot, a missing or SQLite
 *   snapshot, a failed restore, or a member that does not become healthy
 */
export async function clusterReset(o: ClusterResetOptions): Promise<string> {
  const log = o.log ?? (() => undefined);
  if (o.restorePath) {
    if (!existsSync(o.restorePath)) throw new Error(`etcd: snapshot path does not exist: ${o.restorePath}`);
    if (statSync(o.restorePath).isDirectory()) throw new Error(`etcd: snapshot path must be a file, not a directory: ${o.restorePath}`);
    if (isSQLite(o.restorePath)) throw new Error(`${o.restorePath} is a SQLite snapshot: restore it with k8ts etcd-snapshot restore (the server then runs on SQLite)`);
  } else if (!isInitialized(o.dataDir)) {
    throw new Error(
      `no etcd data in ${etcdDir(o.dataDir)}: --cluster-reset resets the member of a server started with --cluster-init or --server (or give --cluster-reset-restore-path)`,
    );
  }
  const pki = await ensureEtcdPKI(o.dataDir, o.nodeName, [], [o.address]);
  const name = memberName(o.dataDir, o.nodeName, true);
  const m: MemberConfig = {
    name,
    dataDir: etcdDir(o.dataDir),
    address: o.address,
    ports: o.ports,
    pki,
    initialClusterState: 'new',
    initialCluster: `${name}=${peerURL({ address: o.address, ports: o.ports })}`,
    extraArgs: o.extraArgs,
  };
  if (o.restorePath) {
    log(`Restoring etcd snapshot ${o.restorePath}`);
    restoreSnapshot(o.restorePath, m, o.dataDir, log);
  } else {
    m.forceNewCluster = true;
  }
  writeEtcdConfig(m);
  const proc = startEtcdProcess({ dir: m.dataDir, healthURL: healthURL(m), onEvent: log });
  try {
    await proc.waitHealthy(o.healthTimeoutMs ?? 120_000);
    const client = memberClient(pki, [`https://127.0.0.1:${o.ports.client}`]);
    try {
      const members = await client.memberList();
      if (members.length !== 1) throw new Error(`etcd still has ${members.length} members after the reset`);
      // force-new-cluster keeps the member's old name and peer URL: they are updated on the next start
      log(`etcd is a single-member cluster: ${members[0]!.name || name} (${members[0]!.peerURLs.join(',')})`);
    } finally {
      client.close();
    }
  } finally {
    await proc.stop();
  }
  writeEtcdConfig({ ...m, forceNewCluster: false });
  return name;
}
