/**
 * `k8ts server` on a real etcd (Debian's etcd-server, started by the test with TLS
 * client-certificate authentication): objects applied with kubectl are in etcd under
 * kube-apiserver's keys, readable with etcdctl, and survive `etcdctl snapshot save` +
 * `snapshot restore` into a new etcd that a new server then serves.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestEtcd, type TestEtcd } from '../support/etcd.js';
import { makeTempDir } from '../support/tmp.js';
import { eventually, startCluster, type Cluster } from './harness.js';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: nginx
  labels:
    app: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27
`;

function etcdArgs(e: TestEtcd, prefix?: string): string[] {
  return [
    '--etcd-servers',
    e.endpoint,
    '--etcd-cafile',
    e.tls!.caFile,
    '--etcd-certfile',
    e.tls!.certFile,
    '--etcd-keyfile',
    e.tls!.keyFile,
    ...(prefix ? ['--etcd-prefix', prefix] : []),
  ];
}

describe('k8ts server on etcd (TLS)', { timeout: 300_000 }, () => {
  let etcd: TestEtcd;
  let c: Cluster;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    etcd = await startTestEtcd({ tls: true });
    cleanups.push(() => etcd.stop());
    c = await startCluster({ args: etcdArgs(etcd) });
    cleanups.push(() => c.stop());
  });
  after(async () => {
    for (const f of cleanups.reverse()) await f().catch(() => {});
  });

  it('a pod applied with kubectl is in etcd at /registry/pods/default/<name>, as JSON, with resourceVersion = mod revision', async () => {
    const r = c.kubectl(['apply', '-f', '-'], { input: POD });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'pod/nginx created');
    await eventually(() => c.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.nodeName}']).stdout === 'e2e-node');
    const stored = JSON.parse(etcd.etcdctl(['get', '/registry/pods/default/nginx', '--print-value-only'])) as { kind: string; metadata: { name: string; labels: object } };
    assert.equal(stored.kind, 'Pod');
    assert.equal(stored.metadata.name, 'nginx');
    assert.deepEqual(stored.metadata.labels, { app: 'web' });
    const rv = c.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.metadata.resourceVersion}']).stdout;
    const info = JSON.parse(etcd.etcdctl(['get', '/registry/pods/default/nginx', '-w', 'json'])) as { kvs: { mod_revision: number }[] };
    assert.equal(String(info.kvs[0]!.mod_revision), rv);
  });

  it('keys follow kube-apiserver`s layout', () => {
    const keys = etcd.etcdctl(['get', '/registry/', '--prefix', '--keys-only']).split('\n').filter(Boolean);
    for (const k of [
      '/registry/minions/e2e-node',
      '/registry/services/specs/default/kubernetes',
      '/registry/services/endpoints/default/kubernetes',
      '/registry/namespaces/kube-system',
      '/registry/clusterroles/cluster-admin',
      '/registry/serviceaccounts/default/default',
      '/registry/leases/kube-node-lease/e2e-node',
    ]) {
      assert.ok(keys.includes(k), `${k} missing from etcd; have e.g. ${keys.slice(0, 20).join(' ')}`);
    }
    const r = c.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(etcd.etcdctl(['get', '/registry/deployments/default/web', '--keys-only']), /\/registry\/deployments\/default\/web/);
  });

  it('etcdctl snapshot save, snapshot restore into a new etcd: a new server on it lists the pod', async () => {
    const tmp = makeTempDir('k8ts-etcd-snap-');
    cleanups.push(async () => tmp.remove());
    const snap = join(tmp.path, 'etcd.snapshot');
    etcd.etcdctl(['snapshot', 'save', snap]);
    await c.stop();
    const restored = await startTestEtcd({ restoreFrom: snap, tlsFrom: etcd.tls });
    cleanups.push(() => restored.stop());
    const c2 = await startCluster({ args: etcdArgs(restored) });
    cleanups.push(() => c2.stop());
    const r = c2.kubectl(['get', 'pods', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.split('\n').includes('pod/nginx'), r.stdout);
    assert.equal(c2.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.containers[0].image}']).stdout, 'nginx:1.27');
    const d = c2.kubectl(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
    assert.equal(d.stdout, 'nginx:1.27', d.stderr);
  });
});

describe('k8ts server with --etcd-prefix', { timeout: 300_000 }, () => {
  let etcd: TestEtcd;
  let c: Cluster;
  before(async () => {
    etcd = await startTestEtcd({ tls: true });
    c = await startCluster({ args: etcdArgs(etcd, '/k8ts-a') });
  });
  after(async () => {
    await c?.stop();
    await etcd?.stop();
  });

  it('stores every key under the prefix instead of /registry', () => {
    const r = c.kubectl(['apply', '-f', '-'], { input: POD });
    assert.equal(r.code, 0, r.stderr);
    assert.match(etcd.etcdctl(['get', '/k8ts-a/pods/default/nginx', '--keys-only']), /\/k8ts-a\/pods\/default\/nginx/);
    assert.equal(etcd.etcdctl(['get', '/registry/', '--prefix', '--keys-only']).trim(), '');
  });
});
