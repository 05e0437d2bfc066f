/**
 * `kubectl apply --prune` and the kinds on kubectl's default prune allowlist, through
 * the real kubectl on the simulated runtime:
 *  - `kubectl apply -f dir -l set=p --prune` deletes the labelled Deployment and
 *    ConfigMap that left the directory (kubectl needs every allowlisted kind served,
 *    including v1 ReplicationController and networking.k8s.io/v1 Ingress);
 *  - `kubectl create ingress` (a protobuf body) and the upstream Ingress columns;
 *  - `kubectl get rc` with the upstream ReplicationController columns.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, startCluster, manifestFile, type Cluster } from './harness.js';

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: x
  labels: {set: p}
spec:
  replicas: 1
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
      - name: c
        image: nginx
`;
const CM = (name: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  labels: {set: p}
data: {k: v}
`;
const RC = `apiVersion: v1
kind: ReplicationController
metadata:
  name: rc1
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: rc1}
    spec:
      containers:
      - name: c
        image: nginx
`;

/** Splits a kubectl table into rows of whitespace-separated cells. */
const rows = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));

describe('kubectl apply --prune and the allowlisted kinds', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('prunes a Deployment and a ConfigMap removed from the directory', () => {
    const dir = join(c.dir, 'prune');
    mkdirSync(dir, { recursive: true });
    const dep = manifestFile(dir, 'deploy.yaml', DEPLOY);
    const cmGone = manifestFile(dir, 'cm-gone.yaml', CM('gone'));
    manifestFile(dir, 'cm-kept.yaml', CM('kept'));
    const first = c.kubectl(['apply', '-f', dir, '-l', 'set=p', '--prune']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /deployment\.apps\/x created/);
    assert.match(first.stdout, /configmap\/gone created/);

    rmSync(dep);
    rmSync(cmGone);
    const second = c.kubectl(['apply', '-f', dir, '-l', 'set=p', '--prune']);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /configmap\/kept unchanged/);
    assert.match(second.stdout, /deployment\.apps\/x pruned/);
    assert.match(second.stdout, /configmap\/gone pruned/);
    assert.notEqual(c.kubectl(['get', 'deployment', 'x']).code, 0);
    assert.notEqual(c.kubectl(['get', 'configmap', 'gone']).code, 0);
    assert.equal(c.kubectl(['get', 'configmap', 'kept']).code, 0);
  });

  it('kubectl create ingress and get ingress show the upstream columns', () => {
    const r = c.kubectl(['create', 'ingress', 'simple', '--rule=foo.com/bar=svc1:8080']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ingress\.networking\.k8s\.io\/simple created/);
    const g = c.kubectl(['get', 'ingress']);
    assert.equal(g.code, 0, g.stderr);
    const t = rows(g.stdout);
    assert.deepEqual(t[0], ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    // ADDRESS is empty (no ingress controller), so the row has one cell fewer
    assert.deepEqual(t[1]!.slice(0, 4), ['simple', '<none>', 'foo.com', '80']);
    const spec = c.kubectl(['get', 'ingress', 'simple', '-o', 'jsonpath={.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].backend.service.port.number}']);
    assert.equal(spec.stdout, 'Exact 8080');

    const bad = c.kubectl(['create', 'ingress', 'bad', '--rule=foo.com/bar=svc1:8080', '--dry-run=server', '-o', 'name', '--class=Bad_Class']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.ingressClassName: Invalid value: "Bad_Class"/);
  });

  it('kubectl get rc after applying a ReplicationController', () => {
    const f = manifestFile(c.dir, 'rc.yaml', RC);
    const a = c.kubectl(['apply', '-f', f]);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /replicationcontroller\/rc1 created/);
    const g = c.kubectl(['get', 'rc']);
    assert.equal(g.code, 0, g.stderr);
    const t = rows(g.stdout);
    assert.deepEqual(t[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    assert.equal(t[1]![0], 'rc1');
    assert.equal(t[1]![1], '2');
    const sel = c.kubectl(['get', 'rc', 'rc1', '-o', 'jsonpath={.spec.selector.app} {.metadata.labels.app}']);
    assert.equal(sel.stdout, 'rc1 rc1');
  });

  it('the replication controller runs an RC’s pods; kubectl scale rc uses its scale subresource', async () => {
    const ready = (n: number) => () => {
      const g = c.kubectl(['get', 'rc', 'rc1', '-o', 'jsonpath={.status.replicas} {.status.readyReplicas}']);
      return g.stdout === `${n} ${n}`;
    };
    await eventually(ready(2), 30_000);
    const pods = JSON.parse(c.kubectl(['get', 'pods', '-l', 'app=rc1', '-o', 'json']).stdout) as {
      items: { metadata: { ownerReferences?: { kind: string; name: string; controller?: boolean }[] } }[];
    };
    assert.equal(pods.items.length, 2);
    for (const p of pods.items)
      assert.deepEqual(
        p.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]),
        [['ReplicationController', 'rc1', true]],
      );
    const sc = c.kubectl(['scale', 'rc', 'rc1', '--replicas=1']);
    assert.equal(sc.code, 0, sc.stderr);
    assert.equal(sc.stdout.trim(), 'replicationcontroller/rc1 scaled');
    await eventually(ready(1), 30_000);
    assert.equal(c.kubectl(['delete', 'rc', 'rc1']).code, 0);
    await eventually(() => c.kubectl(['get', 'pods', '-l', 'app=rc1', '-o', 'name']).stdout.trim() === '', 30_000);
  });

  it('ingressclasses print upstream columns; explain and api-resources know the new kinds', () => {
    const f = manifestFile(
      c.dir,
      'ic.yaml',
      `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: p}
`,
    );
    const a = c.kubectl(['apply', '-f', f]);
    assert.equal(a.code, 0, a.stderr);
    const t = rows(c.kubectl(['get', 'ingressclass']).stdout);
    assert.deepEqual(t[0], ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE']);
    assert.deepEqual(t[1]!.slice(0, 3), ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/p']);
    const ex = c.kubectl(['explain', 'ingress.spec.rules.http.paths.pathType']);
    assert.equal(ex.code, 0, ex.stderr);
    assert.match(ex.stdout, /FIELD: pathType/);
    const rc = c.kubectl(['explain', 'rc.spec.selector']);
    assert.equal(rc.code, 0, rc.stderr);
    const ar = c.kubectl(['api-resources', '--no-headers']).stdout;
    assert.match(ar, /^replicationcontrollers\s+rc\s+v1\s+true\s+ReplicationController$/m);
    assert.match(ar, /^podtemplates\s+v1\s+true\s+PodTemplate$/m);
    assert.match(ar, /^ingresses\s+ing\s+networking\.k8s\.io\/v1\s+true\s+Ingress$/m);
    assert.match(ar, /^ingressclasses\s+networking\.k8s\.io\/v1\s+false\s+IngressClass$/m);
  });
});
