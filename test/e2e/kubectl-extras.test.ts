/**
 * kubectl drain / uncordon, kubectl debug and kind-less creates through the real kubectl
 * (and plain HTTPS / @kubernetes/client-node) on the simulated runtime with `--sim-nodes 1`
 * (nodes e2e-node and sim-node-0):
 *  - drain evicts through pods/eviction (kubectl finds it in /api/v1 discovery), prints
 *    upstream's cordon / evicting / evicted / drained lines; a PodDisruptionBudget that
 *    allows no disruption gives upstream's retry message until drain's --timeout;
 *  - `kubectl debug` adds an ephemeral container through pods/ephemeralcontainers;
 *  - a create whose body has no apiVersion/kind is defaulted from the URL.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { parse as parseYAML } from 'yaml';
import { startCluster, eventually, type Cluster } from './harness.js';

interface PodLite {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; ephemeralContainers?: { name: string; image: string }[] };
  status: { phase?: string };
}

/** One replica pinned to sim-node-0. */
const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeName: sim-node-0
      containers:
      - name: nginx
        image: nginx
`;

/** POSTs JSON over HTTPS with the admin client certificate of the kubeconfig. */
function postWithAdminCert(kubeconfig: string, path: string, body: string): Promise<{ status: number; body: string }> {
  const kc = parseYAML(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const b64 = (s: string): Buffer => Buffer.from(s, 'base64');
  const url = new URL(path, kc.clusters[0]!.cluster.server);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca: b64(kc.clusters[0]!.cluster['certificate-authority-data']),
        cert: b64(kc.users[0]!.user['client-certificate-data']),
        key: b64(kc.users[0]!.user['client-key-data']),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('e2e: kubectl drain, debug and kind-less creates (--sim-nodes 1)', () => {
  let c: Cluster;

  before(async () => {
    c = await startCluster({ args: ['--sim-nodes', '1'] });
    await eventually(() => {
      const r = c.kubectl(['get', 'node', 'sim-node-0', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
      return r.stdout === 'True';
    }, 30_000);
  });

  after(async () => {
    await c?.stop();
  });

  const pod = (name: string): PodLite | undefined => {
    const r = c.kubectl(['get', 'pod', name, '-o', 'json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as PodLite) : undefined;
  };
  const running = (name: string) => eventually(() => pod(name)?.status.phase === 'Running', 30_000);

  it('drain without a PodDisruptionBudget: cordon, evict, drained; uncordon', async () => {
    const run = c.kubectl(['run', 'ce', '--image=nginx', '--labels=app=ce', '--overrides={"spec":{"nodeName":"sim-node-0"}}']);
    assert.equal(run.code, 0, run.stderr);
    await running('ce');
    const d = c.kubectl(['drain', 'sim-node-0', '--pod-selector=app=ce', '--force'], { timeoutMs: 60_000 });
    assert.equal(d.code, 0, d.stderr);
    assert.equal(d.stdout, 'node/sim-node-0 cordoned\nevicting pod default/ce\npod/ce evicted\nnode/sim-node-0 drained\n');
    assert.match(d.stderr, /Warning: deleting Pods that declare no controller: default\/ce/);
    assert.equal(pod('ce'), undefined);
    // the eviction went through pods/eviction: no DELETE fallback, no decode errors
    assert.doesNotMatch(d.stderr, /json parse error|BadRequest/);
    assert.equal(c.kubectl(['get', 'node', 'sim-node-0', '-o', 'jsonpath={.spec.unschedulable}']).stdout, 'true');

    // --disable-eviction: plain DELETEs whose DeleteOptions kubectl sends as protobuf
    const run2 = c.kubectl(['run', 'ce2', '--image=nginx', '--labels=app=ce2', '--overrides={"spec":{"nodeName":"sim-node-0"}}']);
    assert.equal(run2.code, 0, run2.stderr);
    await running('ce2');
    const del = c.kubectl(['drain', 'sim-node-0', '--pod-selector=app=ce2', '--force', '--disable-eviction', '--grace-period=0'], { timeoutMs: 60_000 });
    assert.equal(del.code, 0, del.stderr);
    assert.match(del.stdout, /^node\/sim-node-0 already cordoned\n[\s\S]*pod\/ce2 deleted\nnode\/sim-node-0 drained\n$/);
    assert.equal(pod('ce2'), undefined);

    const u = c.kubectl(['uncordon', 'sim-node-0']);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(u.stdout, 'node/sim-node-0 uncordoned\n');
    assert.equal(c.kubectl(['get', 'node', 'sim-node-0', '-o', 'jsonpath={.spec.unschedulable}']).stdout, '');
  });

  it('drain with a PodDisruptionBudget: upstream retry message while it allows no disruption, evicted once it does', async () => {
    const dep = c.kubectl(['apply', '-f', '-'], { input: WEB });
    assert.equal(dep.code, 0, dep.stderr);
    const pdb = c.kubectl(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']);
    assert.equal(pdb.code, 0, pdb.stderr);
    const podName = await eventually(() => {
      const r = c.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json']);
      const items = (JSON.parse(r.stdout) as { items: PodLite[] }).items;
      const live = items.filter((p) => !p.metadata.deletionTimestamp && p.spec.nodeName === 'sim-node-0' && p.status.phase === 'Running');
      return items.length === 1 && live.length === 1 ? live[0]!.metadata.name : undefined;
    }, 30_000);
    // the disruption controller's status for minAvailable 1 of 1 healthy pod: nothing allowed
    await eventually(() => {
      const st = (
        JSON.parse(c.kubectl(['get', 'pdb', 'web', '-o', 'json']).stdout) as { status?: { observedGeneration?: number; currentHealthy?: number; disruptionsAllowed?: number } }
      ).status;
      return st?.observedGeneration === 1 && st.currentHealthy === 1 && st.disruptionsAllowed === 0;
    }, 30_000);

    const d = c.kubectl(['drain', 'sim-node-0', '--pod-selector=app=web', '--timeout=7s'], { timeoutMs: 60_000 });
    assert.notEqual(d.code, 0);
    assert.match(d.stdout, /^node\/sim-node-0 cordoned\nevicting pod default\/web-/);
    assert.ok(
      d.stderr.includes(`error when evicting pods/"${podName}" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`),
      d.stderr,
    );
    assert.match(d.stderr, /global timeout reached: 7s/);
    assert.equal(pod(podName)?.metadata.deletionTimestamp, undefined);

    // once the budget allows one disruption (minAvailable 0), the eviction takes it and drain completes
    const allow = c.kubectl(['patch', 'pdb', 'web', '--type=merge', '-p', JSON.stringify({ spec: { minAvailable: 0 } })]);
    assert.equal(allow.code, 0, allow.stderr);
    await eventually(() => {
      const st = (JSON.parse(c.kubectl(['get', 'pdb', 'web', '-o', 'json']).stdout) as { status?: { observedGeneration?: number; disruptionsAllowed?: number } }).status;
      return st?.observedGeneration === 2 && st.disruptionsAllowed === 1;
    }, 30_000);
    const ok = c.kubectl(['drain', 'sim-node-0', '--pod-selector=app=web', '--timeout=30s'], { timeoutMs: 60_000 });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, `node/sim-node-0 already cordoned\nevicting pod default/${podName}\npod/${podName} evicted\nnode/sim-node-0 drained\n`);
    assert.equal(c.kubectl(['uncordon', 'sim-node-0']).code, 0);
    assert.equal(c.kubectl(['delete', 'pdb', 'web']).code, 0);
    assert.equal(c.kubectl(['delete', 'deployment', 'web']).code, 0);
  });

  it('kubectl debug adds an ephemeral container', async () => {
    assert.equal(c.kubectl(['run', 'nginx', '--image=nginx']).code, 0);
    await running('nginx');
    const d = c.kubectl(['debug', 'nginx', '--image=busybox', '--container=debugger']);
    assert.equal(d.code, 0, d.stderr);
    assert.doesNotMatch(d.stderr, /ephemeral containers are disabled/);
    const eph = c.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.ephemeralContainers}']);
    const list = JSON.parse(eph.stdout) as { name: string; image: string; imagePullPolicy: string; terminationMessagePolicy: string }[];
    assert.deepEqual(
      list.map((e) => [e.name, e.image, e.imagePullPolicy, e.terminationMessagePolicy]),
      [['debugger', 'busybox', 'Always', 'File']],
    );
    // a second one keeps the first in place (kubectl's $setElementOrder)
    const d2 = c.kubectl(['debug', 'nginx', '--image=alpine', '--container=second']);
    assert.equal(d2.code, 0, d2.stderr);
    assert.equal(c.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.ephemeralContainers[*].name}']).stdout, 'debugger second');
    // names are unique across the pod's containers, as upstream validates
    const dup = c.kubectl(['debug', 'nginx', '--image=busybox', '--container=nginx']);
    assert.notEqual(dup.code, 0);
    assert.match(dup.stderr, /spec\.ephemeralContainers\[\d\]\.name: Duplicate value: "nginx"/);
  });

  it('creates from a body without apiVersion/kind (HTTPS with the admin client certificate, client-node)', async () => {
    const r = await postWithAdminCert(c.kubeconfig, '/api/v1/namespaces/default/configmaps', '{"metadata":{"name":"nokind"},"data":{"a":"b"}}');
    assert.equal(r.status, 201, r.body);
    const created = JSON.parse(r.body) as { apiVersion: string; kind: string };
    assert.equal(created.apiVersion, 'v1');
    assert.equal(created.kind, 'ConfigMap');
    assert.equal(c.kubectl(['get', 'configmap', 'nokind', '-o', 'jsonpath={.data.a}']).stdout, 'b');
    // a kind that does not belong to the URL keeps upstream's error
    const wrong = await postWithAdminCert(c.kubeconfig, '/api/v1/namespaces/default/configmaps', '{"kind":"Secret","metadata":{"name":"wrong"}}');
    assert.equal(wrong.status, 400);
    assert.match(wrong.body, /the object provided is unrecognized \(must be of type ConfigMap\): Secret in version \\"v1\\" cannot be handled as a ConfigMap/);

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(c.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const p = await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'nokind-pod' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(p.kind, 'Pod');
    await running('nokind-pod');
  });
});
