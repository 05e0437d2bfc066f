/**
 * `k8ts etcd-snapshot save|ls|restore|delete` and scheduled snapshots with retention, on
 * both backends: SQLite (an online backup taken by the running server; restored into the
 * stopped server's data dir) and a real etcd (Maintenance.Snapshot; the file is what
 * `etcdctl snapshot save` writes, so real etcdctl reads and restores it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestEtcd, type TestEtcd } from '../support/etcd.js';
import { eventually, ROOT, startCluster, type Cluster } from './harness.js';

function k8ts(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/k8ts.mjs'), ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const podNames = (c: Cluster): string[] => c.kubectl(['get', 'pods', '-o', 'name']).stdout.split('\n').filter(Boolean);

describe('etcd-snapshot on SQLite', { timeout: 180_000 }, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ args: ['--etcd-snapshot-schedule-cron', '@every 1s', '--etcd-snapshot-retention', '2'] });
  });
  after(async () => {
    await c?.stop();
  });

  it('save takes an online snapshot; restore (server stopped) brings the cluster back to it', async () => {
    assert.equal(c.kubectl(['run', 'before', '--image=nginx']).code, 0);
    const save = k8ts(['etcd-snapshot', 'save', '--data-dir', c.dir]);
    assert.equal(save.code, 0, save.stderr);
    const m = /^Snapshot (on-demand-e2e-node-\d+) saved\.$/.exec(save.stdout.trim());
    assert.ok(m, save.stdout);
    const name = m[1]!;
    assert.equal(c.kubectl(['run', 'after', '--image=nginx']).code, 0);

    const ls = k8ts(['etcd-snapshot', 'ls', '--data-dir', c.dir]);
    assert.equal(ls.code, 0, ls.stderr);
    const lines = ls.stdout.trim().split('\n');
    assert.match(lines[0]!, /^Name\s+Location\s+Size\s+Created$/);
    const row = lines.find((l) => l.startsWith(`${name} `));
    assert.match(row ?? '', new RegExp(`^${name}\\s+file://${join(c.dir, 'db', 'snapshots', name)}\\s+\\d+\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));

    const busy = k8ts(['etcd-snapshot', 'restore', '--data-dir', c.dir, name]);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /is in use \(is a k8ts server running on .*\? stop it first\)/);

    await c.kill();
    const restore = k8ts(['etcd-snapshot', 'restore', '--data-dir', c.dir, name]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, new RegExp(`^Restored ${name} into .*state\\.db; the previous database is .*state\\.db\\.old-\\d+\\. Start the server now\\.$`, 'm'));
    await c.restart();
    const pods = await eventually(() => {
      const p = podNames(c);
      return p.includes('pod/before') ? p : undefined;
    });
    assert.ok(!pods.includes('pod/after'), `pod/after was created after the snapshot: ${pods.join(' ')}`);
  });

  it('scheduled snapshots (cron) are pruned to the retention; delete removes one by name', async () => {
    const dir = join(c.dir, 'db', 'snapshots');
    const scheduled = () => readdirSync(dir).filter((n) => n.startsWith('etcd-snapshot-e2e-node-'));
    const seen = new Set<string>();
    await eventually(() => {
      for (const n of scheduled()) seen.add(n);
      return seen.size >= 4;
    }, 30_000);
    // four taken so far, two kept
    await eventually(() => scheduled().length === 2, 10_000);
    const del = k8ts(['etcd-snapshot', 'delete', '--data-dir', c.dir, 'no-such-snapshot']);
    assert.equal(del.code, 1);
    assert.match(del.stderr, /^error: snapshot no-such-snapshot not found in /);
  });
});

describe('etcd-snapshot on etcd', { timeout: 300_000 }, () => {
  let etcd: TestEtcd;
  let c: Cluster;
  const cleanups: (() => Promise<void>)[] = [];
  before(async () => {
    etcd = await startTestEtcd({ tls: true });
    cleanups.push(() => etcd.stop());
    const t = etcd.tls!;
    c = await startCluster({
      args: ['--etcd-servers', etcd.endpoint, '--etcd-cafile', t.caFile, '--etcd-certfile', t.certFile, '--etcd-keyfile', t.keyFile, '--etcd-disable-snapshots'],
    });
    cleanups.push(() => c.stop());
  });
  after(async () => {
    for (const f of cleanups.reverse()) await f().catch(() => {});
  });

  it('save writes an etcd snapshot (Maintenance.Snapshot) that etcdctl reads and restores into a new etcd a server then serves', async () => {
    assert.equal(c.kubectl(['run', 'saved', '--image=nginx:1.27']).code, 0);
    const save = k8ts(['etcd-snapshot', 'save', '--data-dir', c.dir, '--name', 'nightly']);
    assert.equal(save.code, 0, save.stderr);
    const name = /^Snapshot (nightly-e2e-node-\d+) saved\.$/.exec(save.stdout.trim())?.[1];
    assert.ok(name, save.stdout);
    const file = join(c.dir, 'db', 'snapshots', name);
    assert.ok(existsSync(file));
    const status = JSON.parse(etcd.etcdctl(['snapshot', 'status', file, '-w', 'json'])) as { revision: number; totalKey: number };
    assert.ok(status.totalKey > 10 && status.revision > 0, JSON.stringify(status));

    await c.kill(); // (stop() would delete its data dir, where the snapshot is)
    const restored = await startTestEtcd({ restoreFrom: file, tlsFrom: etcd.tls });
    cleanups.push(() => restored.stop());
    const t = restored.tls!;
    const c2 = await startCluster({
      args: ['--etcd-servers', restored.endpoint, '--etcd-cafile', t.caFile, '--etcd-certfile', t.certFile, '--etcd-keyfile', t.keyFile, '--etcd-disable-snapshots'],
    });
    cleanups.push(() => c2.stop());
    assert.ok(podNames(c2).includes('pod/saved'));
    // a SQLite restore refuses an etcd snapshot and says how to restore it
    const r = k8ts(['etcd-snapshot', 'restore', '--data-dir', c2.dir, file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is not a SQLite snapshot; an etcd snapshot is restored with `etcdctl snapshot restore /);
  });
});
