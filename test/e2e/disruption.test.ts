/**
 * PodDisruptionBudgets kept current by the disruption controller, through the real kubectl
 * on the simulated runtime with `--sim-nodes 1` (nodes e2e-node and sim-node-0):
 *  - `kubectl get pdb` shows the allowed disruptions the controller computed;
 *  - `kubectl drain` evicts a Deployment's pods one at a time as the budget allows,
 *    while their replacements start on the other node, and succeeds;
 *  - maxUnavailable as a percent of the Deployment's scale;
 *  - a budget matching no pods gets the NoPods event.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

interface PodLite {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: { type: string; status: string }[] };
}

interface PDBLite {
  status?: {
    observedGeneration?: number;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
    conditions?: { type: string; status: string; reason: string }[];
  };
}

const deployment = (name: string, replicas: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: nginx
`;

describe('e2e: disruption controller (--sim-nodes 1)', () => {
  let c: Cluster;

  before(async () => {
    c = await startCluster({ args: ['--sim-nodes', '1'] });
    await eventually(() => {
      const r = c.kubectl(['get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}']);
      return r.stdout === 'True True';
    }, 30_000);
  });

  after(async () => {
    await c?.stop();
  });

  const pods = (app: string): PodLite[] => (JSON.parse(c.kubectl(['get', 'pods', '-l', `app=${app}`, '-o', 'json']).stdout) as { items: PodLite[] }).items;
  const ready = (p: PodLite): boolean => !p.metadata.deletionTimestamp && !!p.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');
  const pdb = (name: string): PDBLite => JSON.parse(c.kubectl(['get', 'pdb', name, '-o', 'json']).stdout) as PDBLite;

  it('minAvailable 2 of 3: ALLOWED DISRUPTIONS 1; drain evicts one pod at a time and succeeds', async () => {
    // all three replicas on sim-node-0 first, then e2e-node takes the replacements
    assert.equal(c.kubectl(['cordon', 'e2e-node']).code, 0);
    const dep = c.kubectl(['apply', '-f', '-'], { input: deployment('web', 3) });
    assert.equal(dep.code, 0, dep.stderr);
    const cr = c.kubectl(['create', 'pdb', 'web', '--selector=app=web', '--min-available=2']);
    assert.equal(cr.code, 0, cr.stderr);
    await eventually(() => {
      const l = pods('web');
      return l.length === 3 && l.every((p) => ready(p) && p.spec.nodeName === 'sim-node-0');
    }, 30_000);
    assert.equal(c.kubectl(['uncordon', 'e2e-node']).code, 0);

    const table = await eventually(() => {
      const r = c.kubectl(['get', 'pdb', 'web']);
      return / 1 +\S+\n$/.test(r.stdout) ? r.stdout : undefined;
    }, 15_000);
    const [header, row] = table.trimEnd().split('\n');
    assert.deepEqual(header!.split(/\s{2,}/), ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    assert.deepEqual(row!.split(/\s+/).slice(0, 4), ['web', '2', 'N/A', '1']);
    const st = pdb('web').status!;
    assert.deepEqual([st.observedGeneration, st.currentHealthy, st.desiredHealthy, st.expectedPods, st.disruptionsAllowed], [1, 3, 2, 3, 1]);
    assert.deepEqual(
      st.conditions?.map((x) => [x.type, x.status, x.reason]),
      [['DisruptionAllowed', 'True', 'SufficientPods']],
    );

    const before = pods('web')
      .map((p) => p.metadata.name)
      .sort();
    // every change to the Deployment's pods while drain runs, from one watch: never fewer than 2 ready
    let drained: () => void = () => undefined;
    let listedAll: () => void = () => undefined;
    const listing = new Promise<void>((r) => (listedAll = r));
    const watch = c.kubectlAsync(['get', 'pods', '-l', 'app=web', '-w', '--output-watch-events', '-o', 'json'], {
      timeoutMs: 150_000,
      until: new Promise<void>((r) => (drained = r)),
      onStdout: (soFar) => (soFar.match(/^\{"type":"ADDED"/gm)?.length === 3 ? listedAll() : undefined),
    });
    await Promise.race([listing, watch]); // the watch's initial list (three ADDED events) is out before drain starts
    const drain = c.kubectlAsync(['drain', 'sim-node-0', '--ignore-daemonsets', '--delete-emptydir-data', '--pod-selector=app=web', '--timeout=120s'], { timeoutMs: 150_000 });
    void drain.then(() => setTimeout(drained, 1000)); // the last changes reach the watch
    const events = (await watch).stdout // one event per line
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; object: PodLite });
    const readyNow = new Map<string, boolean>();
    let minReady = Number.POSITIVE_INFINITY;
    let listed = false;
    for (const e of events) {
      if (e.type === 'DELETED') readyNow.delete(e.object.metadata.name);
      else readyNow.set(e.object.metadata.name, ready(e.object));
      const n = [...readyNow.values()].filter(Boolean).length;
      if (n === 3) listed = true; // the watch's initial list arrives one pod at a time
      if (listed) minReady = Math.min(minReady, n);
    }
    assert.ok(listed && events.some((e) => e.type === 'DELETED'), `the watch saw the drain: ${events.map((e) => `${e.type} ${e.object.metadata.name}`).join(', ')}`);
    const d = await drain;
    assert.equal(d.code, 0, d.stderr);
    assert.ok(minReady >= 2, `ready pods fell to ${minReady}`);
    const lines = d.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'node/sim-node-0 cordoned');
    assert.equal(lines.at(-1), 'node/sim-node-0 drained');
    assert.deepEqual(
      lines
        .filter((l) => l.endsWith(' evicted'))
        .map((l) => l.slice('pod/'.length, -' evicted'.length))
        .sort(),
      before,
    );
    // the budget made drain wait for the replacements (upstream's retry line)
    assert.match(d.stderr, /error when evicting pods\/"web-[^"]+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);

    const moved = await eventually(() => {
      const l = pods('web');
      return l.length === 3 && l.every((p) => ready(p) && p.spec.nodeName === 'e2e-node') ? l : undefined;
    }, 30_000);
    assert.equal(moved.length, 3);
    await eventually(() => pdb('web').status?.disruptionsAllowed === 1, 15_000);
    assert.equal(c.kubectl(['uncordon', 'sim-node-0']).code, 0);
    assert.equal(c.kubectl(['delete', 'pdb', 'web']).code, 0);
    assert.equal(c.kubectl(['delete', 'deployment', 'web']).code, 0);
  });

  it('maxUnavailable 50% of a Deployment of 4: 2 allowed', async () => {
    const dep = c.kubectl(['apply', '-f', '-'], { input: deployment('api', 4) });
    assert.equal(dep.code, 0, dep.stderr);
    const cr = c.kubectl(['create', 'pdb', 'api', '--selector=app=api', '--max-unavailable=50%']);
    assert.equal(cr.code, 0, cr.stderr);
    await eventually(() => pods('api').filter(ready).length === 4, 30_000);
    const st = await eventually(() => {
      const s = pdb('api').status;
      return s?.currentHealthy === 4 ? s : undefined;
    }, 15_000);
    assert.deepEqual([st.expectedPods, st.desiredHealthy, st.disruptionsAllowed], [4, 2, 2]);
    const row = c.kubectl(['get', 'pdb', 'api', '--no-headers']).stdout.trim().split(/\s+/);
    assert.deepEqual(row.slice(0, 4), ['api', 'N/A', '50%', '2']);
    assert.equal(c.kubectl(['delete', 'deployment', 'api']).code, 0);
    // no pods left: nothing expected, nothing allowed
    await eventually(() => pdb('api').status?.expectedPods === 0 && pdb('api').status?.disruptionsAllowed === 0, 30_000);
  });

  it('a budget matching no pods: NoPods "No matching pods found"', async () => {
    const cr = c.kubectl(['create', 'pdb', 'lonely', '--selector=app=nobody', '--min-available=1']);
    assert.equal(cr.code, 0, cr.stderr);
    const ev = await eventually(() => {
      const r = c.kubectl(['get', 'events', '--field-selector', 'involvedObject.kind=PodDisruptionBudget,involvedObject.name=lonely', '-o', 'json']);
      const items = (JSON.parse(r.stdout) as { items: { type: string; reason: string; message: string; source?: { component?: string } }[] }).items;
      return items.find((e) => e.reason === 'NoPods');
    }, 15_000);
    assert.deepEqual([ev.type, ev.message, ev.source?.component], ['Normal', 'No matching pods found', 'controllermanager']);
    const st = pdb('lonely').status!;
    assert.deepEqual([st.observedGeneration, st.expectedPods, st.disruptionsAllowed], [1, 0, 0]);
    assert.deepEqual(
      st.conditions?.map((x) => [x.type, x.status, x.reason]),
      [['DisruptionAllowed', 'False', 'InsufficientPods']],
    );
  });

  it('the controller logged no sync errors', () => {
    assert.doesNotMatch(c.log(), /disruption-controller: error/);
  });
});
