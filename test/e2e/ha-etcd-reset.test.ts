/**
 * Managed etcd over a server's life, as k3s: the first `--cluster-init` start over a
 * SQLite data dir migrates its objects into etcd in the order of their revisions; a
 * two-server cluster that lost a member is brought back with `--cluster-reset` (a new
 * single-member cluster from the member's own data); `--cluster-reset
 * --cluster-reset-restore-path <snapshot>` goes back to an etcd snapshot.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ETCD_PACKAGES, requirePackages } from '../support/deps.js';
import { makeTempDir, type TempDir } from '../support/tmp.js';
import { freePort, ROOT, startCluster, type Cluster } from './harness.js';

const k8ts = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/k8ts.mjs'), ...args], { encoding: 'utf8', timeout: 180_000 });

async function etcdPorts(): Promise<string[]> {
  return ['--etcd-client-port', String(await freePort()), '--etcd-peer-port', String(await freePort()), '--etcd-metrics-port', String(await freePort())];
}

function etcdctl(dir: string, port: string, args: string[]): string {
  const tls = join(dir, 'tls', 'etcd');
  const r = spawnSync(
    'etcdctl',
    [
      `--endpoints=https://127.0.0.1:${port}`,
      `--cacert=${join(tls, 'ca.crt')}`,
      `--cert=${join(tls, 'healthcheck-client.crt')}`,
      `--key=${join(tls, 'healthcheck-client.key')}`,
      ...args,
    ],
    { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' }, timeout: 30_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** ConfigMap names in the order of their resourceVersions. */
function byRevision(c: Cluster): string[] {
  const r = c.kubectl(['get', 'configmaps', '-l', 'step', '-o', 'jsonpath={range .items[*]}{.metadata.resourceVersion} {.metadata.name}{"\\n"}{end}']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => l.split(' '))
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map((x) => x[1]!);
}

describe('managed etcd: SQLite migration, --cluster-reset, restore from a snapshot', { timeout: 600_000 }, () => {
  const dirs: TempDir[] = [];
  const running: Cluster[] = [];
  let a: Cluster;
  let dirA = '';
  let portsA: string[] = [];

  before(async () => {
    requirePackages(ETCD_PACKAGES, 'the managed etcd');
    dirs.push(makeTempDir('k8ts-ha-reset-a-'), makeTempDir('k8ts-ha-reset-b-'));
    dirA = dirs[0]!.path;
    portsA = await etcdPorts();
  });
  after(async () => {
    for (const c of running) await c.stop().catch(() => {});
    for (const d of dirs) d.remove();
  });

  const startA = async (extra: string[] = []): Promise<Cluster> => {
    a = await startCluster({ dir: dirA, args: ['--node-name', 'ha-a', ...extra], readyTimeoutMs: 120_000 });
    running.push(a);
    return a;
  };

  it('the first --cluster-init start over SQLite data moves every object into etcd, keeping the order of their writes', async () => {
    await startA();
    for (const n of ['cm-0', 'cm-1', 'cm-2', 'cm-3']) assert.equal(a.kubectl(['create', 'configmap', n, '--from-literal=v=1']).code, 0);
    assert.equal(a.kubectl(['label', 'configmap', 'cm-0', 'cm-1', 'cm-2', 'cm-3', 'step=1']).code, 0);
    assert.equal(a.kubectl(['label', 'configmap', 'cm-1', 'step=2', '--overwrite']).code, 0);
    const order = byRevision(a);
    assert.deepEqual(order, ['cm-0', 'cm-2', 'cm-3', 'cm-1']);
    await a.stop();

    await startA(['--cluster-init', ...portsA]);
    assert.match(a.log(), /Migrated \d+ keys from sqlite to etcd/);
    assert.ok(existsSync(join(dirA, 'db', 'state.db.migrated')) && !existsSync(join(dirA, 'db', 'state.db')));
    assert.deepEqual(byRevision(a), order);
    const cm = JSON.parse(etcdctl(dirA, portsA[1]!, ['get', '/registry/configmaps/default/cm-1', '--print-value-only'])) as { metadata: { labels: Record<string, string> } };
    assert.equal(cm.metadata.labels.step, '2');
  });

  it('--cluster-reset makes a member that lost its peer a new single-member cluster, keeping the data', async () => {
    const portsB = await etcdPorts();
    const b = await startCluster({
      dir: dirs[1]!.path,
      args: ['--server', `https://127.0.0.1:${a.port}`, '--token-file', join(dirA, 'node-token'), '--node-name', 'ha-b', ...portsB],
      readyTimeoutMs: 120_000,
    });
    running.push(b);
    assert.equal(b.kubectl(['create', 'configmap', 'before-reset']).code, 0);
    assert.equal(etcdctl(dirA, portsA[1]!, ['member', 'list']).trim().split('\n').length, 2);
    // both servers go; the second never comes back: the first alone has no quorum
    await b.stop();
    await a.stop();
    const oldName = readFileSync(join(dirA, 'etcd', 'name'), 'utf8');

    const reset = k8ts(['server', '--data-dir', dirA, '--node-name', 'ha-a', '--cluster-reset', ...portsA]);
    assert.equal(reset.status, 0, reset.stderr + reset.stdout);
    assert.match(reset.stdout, /Managed etcd cluster membership has been reset, restart without --cluster-reset flag now\./);
    const newName = readFileSync(join(dirA, 'etcd', 'name'), 'utf8');
    assert.notEqual(newName, oldName);

    await startA(['--cluster-init', ...portsA]);
    const members = etcdctl(dirA, portsA[1]!, ['member', 'list']).trim().split('\n');
    assert.equal(members.length, 1, members.join('\n'));
    assert.match(members[0]!, new RegExp(`, started, ${newName}, `));
    assert.equal(a.kubectl(['get', 'configmap', 'before-reset', '-o', 'name']).stdout.trim(), 'configmap/before-reset');
  });

  it('--cluster-reset-restore-path restores an etcd snapshot (the old data moved aside); a SQLite snapshot is refused', async () => {
    const save = k8ts(['etcd-snapshot', 'save', '--data-dir', dirA]);
    assert.equal(save.status, 0, save.stderr);
    const name = /^Snapshot (on-demand-ha-a-\d+) saved\.$/.exec(save.stdout.trim())?.[1];
    assert.ok(name, save.stdout);
    assert.equal(a.kubectl(['create', 'configmap', 'after-snapshot']).code, 0);
    await a.stop();

    const sqlite = k8ts(['server', '--data-dir', dirA, '--cluster-reset', '--cluster-reset-restore-path', join(dirA, 'db', 'state.db.migrated'), ...portsA]);
    assert.equal(sqlite.status, 1);
    assert.match(sqlite.stderr, /state\.db\.migrated is a SQLite snapshot: restore it with k8ts etcd-snapshot restore/);

    const snapshot = join(dirA, 'db', 'snapshots', name);
    const reset = k8ts(['server', '--data-dir', dirA, '--node-name', 'ha-a', '--cluster-reset', '--cluster-reset-restore-path', snapshot, ...portsA]);
    assert.equal(reset.status, 0, reset.stderr + reset.stdout);
    assert.ok(readdirSync(dirA).some((d) => /^etcd-old-\d+$/.test(d)));

    await startA(['--cluster-init', ...portsA]);
    assert.equal(a.kubectl(['get', 'configmap', 'before-reset', '-o', 'name']).stdout.trim(), 'configmap/before-reset');
    const gone = a.kubectl(['get', 'configmap', 'after-snapshot']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /configmaps "after-snapshot" not found/);
  });
});
