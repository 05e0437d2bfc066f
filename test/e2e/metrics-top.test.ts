/**
 * metrics.k8s.io and `kubectl top` on the simulated runtime: the built-in metrics server
 * (scraping every second here, `--metric-resolution 1s`) serves NodeMetrics and PodMetrics
 * from the kubelets' /metrics/resource, whose synthetic figures come from the pods'
 * `sim.k8ts.io/cpu-usage` / `sim.k8ts.io/memory-usage` annotations; `kubectl top nodes`,
 * `kubectl top pods --containers` and selectors work; the APIService is Local.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: busy
  labels: {app: busy}
  annotations:
    sim.k8ts.io/cpu-usage: 250m
    sim.k8ts.io/memory-usage: 64Mi
spec:
  containers:
  - {name: main, image: busybox, command: [sleep, infinity]}
  - {name: side, image: busybox, command: [sleep, infinity]}
---
apiVersion: v1
kind: Pod
metadata:
  name: idle
  labels: {app: idle}
spec:
  containers:
  - {name: main, image: busybox, command: [sleep, infinity]}
`;

describe('e2e: metrics.k8s.io and kubectl top (simulated runtime)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ args: ['--metric-resolution', '1s'] });
  });
  after(async () => {
    await c?.stop();
  });

  const ok = (args: string[], input?: string): string => {
    const r = c.kubectl(args, { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const table = (out: string): string[][] =>
    out
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));

  it('v1beta1.metrics.k8s.io is a Local, Available APIService listed in discovery', () => {
    const row = table(ok(['get', 'apiservice', 'v1beta1.metrics.k8s.io']))[1]!;
    assert.deepEqual(row.slice(0, 3), ['v1beta1.metrics.k8s.io', 'Local', 'True']);
    assert.deepEqual(table(ok(['api-resources', '--api-group', 'metrics.k8s.io'])), [
      ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
      ['nodes', 'metrics.k8s.io/v1beta1', 'false', 'NodeMetrics'],
      ['pods', 'metrics.k8s.io/v1beta1', 'true', 'PodMetrics'],
    ]);
  });

  it('kubectl top pods (--containers, -l) and the PodMetrics object', async () => {
    ok(['apply', '-f', '-'], POD);
    const out = await eventually(
      () => {
        const r = c.kubectl(['top', 'pods', '--containers']);
        return r.code === 0 && r.stdout.includes('busy') && r.stdout.includes('idle') ? r.stdout : undefined;
      },
      30_000,
      500,
    );
    assert.deepEqual(table(out), [
      ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'],
      ['busy', 'main', '250m', '64Mi'],
      ['busy', 'side', '250m', '64Mi'],
      ['idle', 'main', '1m', '4Mi'],
    ]);
    assert.deepEqual(table(ok(['top', 'pods', '-l', 'app=busy'])), [
      ['NAME', 'CPU(cores)', 'MEMORY(bytes)'],
      ['busy', '500m', '128Mi'],
    ]);
    const pm = JSON.parse(ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/busy'])) as Record<string, unknown>;
    assert.equal(pm.kind, 'PodMetrics');
    assert.equal(pm.apiVersion, 'metrics.k8s.io/v1beta1');
    assert.match(String(pm.window), /^1(\.\d+)?s$/, 'the window is the time between two scrapes');
    assert.deepEqual((pm.metadata as { labels: unknown }).labels, { app: 'busy' });
    assert.deepEqual(pm.containers, [
      { name: 'main', usage: { cpu: '250m', memory: '64Mi' } },
      { name: 'side', usage: { cpu: '250m', memory: '64Mi' } },
    ]);
    const fsel = JSON.parse(ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.name%3Didle'])) as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    assert.equal(fsel.kind, 'PodMetricsList');
    assert.deepEqual(
      fsel.items.map((i) => i.metadata.name),
      ['idle'],
    );
    const nf = c.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope']);
    assert.equal(nf.stderr.trim(), 'Error from server (NotFound): pods "nope" not found');
  });

  it('an HPA on CPU utilization scales a Deployment up from the metrics (upstream algorithm and texts)', async () => {
    ok(
      ['apply', '-f', '-'],
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: hot}
spec:
  replicas: 1
  selector: {matchLabels: {app: hot}}
  template:
    metadata:
      labels: {app: hot}
      annotations: {sim.k8ts.io/cpu-usage: 200m}
    spec:
      containers:
      - {name: main, image: busybox, command: [sleep, infinity], resources: {requests: {cpu: 100m}}}
`,
    );
    ok(['autoscale', 'deploy/hot', '--min=1', '--max=10', '--cpu-percent=50']);
    // 200 % of the request against a 50 % target: ratio 4, so 4 replicas (the scale-up limit is max(2 × 1, 4))
    await eventually(() => ok(['get', 'deploy', 'hot', '-o', 'jsonpath={.spec.replicas}']) === '4' || undefined, 60_000, 500);
    const desc = ok(['describe', 'hpa', 'hot']);
    assert.match(desc, /Normal\s+SuccessfulRescale\s+.*horizontal-pod-autoscaler\s+New size: 4; reason: cpu resource utilization \(percentage of request\) above target/);
    assert.match(
      desc,
      /ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)/,
    );
    const row = table(ok(['get', 'hpa', 'hot']))[1]!;
    assert.equal(row[0], 'hot');
    assert.match(row.slice(2, 4).join(' '), /^cpu: 200%\/50%$/);
  });

  it('kubectl top nodes: the node sums its pods over a base, with percentages of allocatable', async () => {
    const out = await eventually(
      () => {
        const r = c.kubectl(['top', 'nodes']);
        return r.code === 0 && r.stdout.includes('e2e-node') ? r.stdout : undefined;
      },
      30_000,
      500,
    );
    const [head, row] = table(out);
    assert.deepEqual(head, ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    assert.equal(row![0], 'e2e-node');
    assert.match(row![2]!, /^\d+%$/);
    assert.match(row![4]!, /^\d+%$/);
    // the node's synthetic figures: a base of 50m and 256Mi plus every running container's
    // (read until both lists come from the same scrape: pods the HPA added may still be starting)
    const milli = (q: string): number => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
    const mi = (q: string): number => Number(q.replace(/Mi$/, ''));
    await eventually(
      () => {
        const all = JSON.parse(ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/pods'])) as { items: { containers: { usage: { cpu: string; memory: string } }[] }[] };
        const containers = all.items.flatMap((i) => i.containers);
        const nm = JSON.parse(ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes/e2e-node'])) as { kind: string; usage: { cpu: string; memory: string } };
        const cpu = 50 + containers.reduce((s, x) => s + milli(x.usage.cpu), 0);
        const mem = 256 + containers.reduce((s, x) => s + mi(x.usage.memory), 0);
        return containers.length >= 3 && nm.kind === 'NodeMetrics' && nm.usage.cpu === `${cpu}m` && nm.usage.memory === `${mem}Mi`;
      },
      20_000,
      300,
    );
  });

  it('system:aggregated-metrics-reader (metrics-server’s ClusterRole) is aggregated into view: a namespace viewer may read PodMetrics, not NodeMetrics', async () => {
    const role = JSON.parse(ok(['get', 'clusterrole', 'system:aggregated-metrics-reader', '-o', 'json'])) as { metadata: { labels: Record<string, string> }; rules: unknown[] };
    assert.equal(role.metadata.labels['rbac.authorization.k8s.io/aggregate-to-view'], 'true');
    assert.deepEqual(role.rules, [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }]);
    ok(['create', 'serviceaccount', 'viewer']);
    ok(['create', 'rolebinding', 'viewer-view', '--clusterrole=view', '--serviceaccount=default:viewer']);
    const sa = ['--as=system:serviceaccount:default:viewer'];
    // the clusterrole-aggregation controller adds the rules to view
    await eventually(() => c.kubectl(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', ...sa]).stdout.trim() === 'yes' || undefined, 15_000, 300);
    const top = c.kubectl(['top', 'pod', 'busy', ...sa]);
    assert.equal(top.code, 0, top.stderr);
    assert.match(top.stdout, /^busy\s+500m\s+128Mi/m);
    // view is bound in the namespace only: node metrics stay out of reach
    const nodes = c.kubectl(['top', 'node', ...sa]);
    assert.notEqual(nodes.code, 0);
    assert.match(
      nodes.stderr,
      /nodes\.metrics\.k8s\.io is forbidden: User "system:serviceaccount:default:viewer" cannot list resource "nodes" in API group "metrics\.k8s\.io" at the cluster scope/,
    );
  });
});
