/**
 * The foundation flow through the real kubectl: apply a Pod, watch it become Running on
 * the simulated runtime, describe it, delete it; discovery, explain, create with
 * protobuf bodies, strict field validation, restart persistence.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, eventually, manifestFile, MANIFESTS, type Cluster } from './harness.js';

describe('e2e: kubectl against k8ts server', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('reports version 1.32 and the node', () => {
    const v = c.kubectl(['version', '-o', 'json']);
    assert.equal(v.code, 0, v.stderr);
    const server = JSON.parse(v.stdout).serverVersion;
    assert.equal(server.major, '1');
    assert.equal(server.minor, '32');
    const nodes = c.kubectl(['get', 'nodes']);
    assert.equal(nodes.code, 0, nodes.stderr);
    assert.match(nodes.stdout, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\n/);
    assert.match(nodes.stdout, /e2e-node\s+Ready\s+<none>/);
  });

  it('is ready only with its bootstrap done: /readyz?verbose lists the post-start hook', () => {
    const r = c.kubectl(['get', '--raw', '/readyz?verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\[\+\]poststarthook\/rbac\/bootstrap-roles ok$/m);
    assert.match(r.stdout, /readyz check passed\n$/);
  });

  it('applies simple-pod.yaml: created, Running, events, then unchanged/configured', async () => {
    const f = join(MANIFESTS, 'simple-pod.yaml');
    const r = c.kubectl(['apply', '-f', f]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'pod/nginx created');
    const w = c.kubectl(['wait', '--for=condition=Ready', 'pod/nginx', '--timeout=20s']);
    assert.equal(w.code, 0, w.stderr);
    const g = c.kubectl(['get', 'pods']);
    assert.match(g.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
    assert.match(g.stdout, /nginx\s+1\/1\s+Running\s+0\s+\d+s/);
    const wide = c.kubectl(['get', 'pods', '-o', 'wide']);
    assert.match(wide.stdout, /NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);
    assert.match(wide.stdout, /nginx\s+1\/1\s+Running\s+0\s+\S+\s+10\.42\.\d+\.\d+\s+e2e-node\s+<none>\s+<none>/);
    const d = await eventually(() => {
      const out = c.kubectl(['describe', 'pod', 'nginx']).stdout;
      return /Started/.test(out) ? out : '';
    });
    for (const reason of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']) assert.match(d, new RegExp(`Normal\\s+${reason}\\s`));
    assert.match(d, /Successfully assigned default\/nginx to e2e-node/);
    assert.match(d, /QoS Class:\s+BestEffort/);
    assert.match(d, /Port:\s+80\/TCP/);
    const again = c.kubectl(['apply', '-f', f]);
    assert.equal(again.stdout.trim(), 'pod/nginx unchanged');
    const changed = manifestFile(
      c.dir,
      'nginx-labelled.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\n  labels:\n    app: web\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.14.2\n    ports:\n    - containerPort: 80\n',
    );
    const conf = c.kubectl(['apply', '-f', changed]);
    assert.equal(conf.code, 0, conf.stderr);
    assert.equal(conf.stdout.trim(), 'pod/nginx configured');
    const jp = c.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.metadata.labels.app} {.status.phase} {.status.qosClass}']);
    assert.equal(jp.stdout, 'web Running BestEffort');
  });

  it('shows get -o yaml with defaults filled in', () => {
    const y = c.kubectl(['get', 'pod', 'nginx', '-o', 'yaml']);
    assert.equal(y.code, 0, y.stderr);
    for (const s of [
      'restartPolicy: Always',
      'dnsPolicy: ClusterFirst',
      'terminationGracePeriodSeconds: 30',
      'schedulerName: default-scheduler',
      'imagePullPolicy: IfNotPresent',
      'protocol: TCP',
      'enableServiceLinks: true',
    ]) {
      assert.ok(y.stdout.includes(s), `missing ${s}`);
    }
  });

  it('deletes the pod within the grace period', () => {
    const t0 = Date.now();
    const r = c.kubectl(['delete', 'pod', 'nginx', '--timeout=30s']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'pod "nginx" deleted');
    assert.ok(Date.now() - t0 < 30_000);
    const g = c.kubectl(['get', 'pod', 'nginx']);
    assert.equal(g.code, 1);
    assert.match(g.stderr, /Error from server \(NotFound\): pods "nginx" not found/);
  });

  it('lists API resources and explains pod.spec.containers', () => {
    const r = c.kubectl(['api-resources']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^pods\s+po\s+v1\s+true\s+Pod$/m);
    assert.match(r.stdout, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
    const e = c.kubectl(['explain', 'pod.spec.containers']);
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stdout, /KIND:\s+Pod/);
    assert.match(e.stdout, /FIELD:\s+containers <\[\]Container>/);
  });

  it('creates namespace, configmap and secret (protobuf bodies)', () => {
    assert.equal(c.kubectl(['create', 'namespace', 'demo']).stdout.trim(), 'namespace/demo created');
    assert.equal(c.kubectl(['create', 'configmap', 'cfg', '-n', 'demo', '--from-literal=a=b']).stdout.trim(), 'configmap/cfg created');
    assert.equal(c.kubectl(['create', 'secret', 'generic', 's', '-n', 'demo', '--from-literal=p=q']).stdout.trim(), 'secret/s created');
    assert.equal(c.kubectl(['get', 'cm', 'cfg', '-n', 'demo', '-o', 'jsonpath={.data.a}']).stdout, 'b');
    assert.equal(c.kubectl(['get', 'secret', 's', '-n', 'demo', '-o', 'jsonpath={.data.p}']).stdout, Buffer.from('q').toString('base64'));
  });

  it('deletes a namespace and its contents', async () => {
    assert.equal(c.kubectl(['create', 'namespace', 'gone']).code, 0);
    assert.equal(c.kubectl(['create', 'configmap', 'x', '-n', 'gone', '--from-literal=a=b']).code, 0);
    const r = c.kubectl(['delete', 'namespace', 'gone', '--timeout=30s']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'namespace "gone" deleted');
    const g = c.kubectl(['get', 'namespace', 'gone']);
    assert.match(g.stderr, /Error from server \(NotFound\): namespaces "gone" not found/);
    const d = c.kubectl(['delete', 'namespace', 'default']);
    assert.match(d.stderr, /Error from server \(Forbidden\): namespaces "default" is forbidden: this namespace may not be deleted/);
  });

  it('rejects an unknown field with --validate=strict', () => {
    const f = manifestFile(c.dir, 'bogus.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bogus\nspec:\n  bogusField: 1\n  containers:\n  - name: c\n    image: busybox\n');
    const r = c.kubectl(['apply', '--validate=strict', '-f', f]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Error from server \(BadRequest\): error when creating ".*bogus\.yaml": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec\.bogusField"/,
    );
  });

  it('returns NotFound for a missing namespace', () => {
    const r = c.kubectl(['apply', '-f', join(MANIFESTS, 'qos-guaranteed.yaml')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(NotFound\): error when creating ".*qos-guaranteed\.yaml": namespaces "qos-example" not found/);
  });

  it('streams changes with get -w', async () => {
    const watching = c.kubectlAsync(['get', 'pods', '-w'], { timeoutMs: 8000 });
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(c.kubectl(['run', 'watched', '--image=busybox:1.36', '--restart=Never', '--', 'sleep', '3600']).code, 0);
    const r = await watching;
    assert.match(r.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
    assert.match(r.stdout, /watched\s+0\/1\s+Pending\s+0/);
    assert.match(r.stdout, /watched\s+1\/1\s+Running\s+0/);
  });

  it('keeps acknowledged writes across kill -9', async () => {
    for (let i = 0; i < 20; i++) assert.equal(c.kubectl(['create', 'configmap', `k9-${i}`, `--from-literal=i=${i}`]).code, 0);
    await c.kill();
    await c.restart();
    const names = c.kubectl(['get', 'cm', '-o', 'name']).stdout;
    for (let i = 0; i < 20; i++) assert.ok(names.includes(`configmap/k9-${i}\n`), `k9-${i} lost`);
  });

  it('keeps every object across a restart', async () => {
    assert.equal(c.kubectl(['create', 'configmap', 'keep', '--from-literal=x=y']).code, 0);
    await c.restart();
    assert.equal(c.kubectl(['get', 'cm', 'keep', '-o', 'jsonpath={.data.x}']).stdout, 'y');
    assert.equal(c.kubectl(['get', 'ns', 'demo', '-o', 'jsonpath={.status.phase}']).stdout, 'Active');
  });
});
