/**
 * Scheduling through the real kubectl against `k8ts server --sim-nodes 3` (4 nodes:
 * e2e-node, sim-node-0..2): the example manifests' placements and FailedScheduling
 * messages as EXPECTED.md gives them, PriorityClass admission, and preemption.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, eventually, manifestFile, MANIFESTS, type Cluster } from './harness.js';

const NODES = ['e2e-node', 'sim-node-0', 'sim-node-1', 'sim-node-2'];
const N = NODES.length;

describe('e2e: scheduling', () => {
  let c: Cluster;
  const m = (f: string) => join(MANIFESTS, f);
  const ok = (args: string[]) => {
    const r = c.kubectl(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const jp = (ns: string, pod: string, path: string) => c.kubectl(['get', 'pod', pod, '-n', ns, '-o', `jsonpath=${path}`]).stdout;
  /** PodScheduled condition as `status/reason/message`, once the scheduler set one. */
  const scheduled = (ns: string, pod: string) =>
    eventually(() => {
      const s = jp(
        ns,
        pod,
        '{.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}/{.status.conditions[?(@.type=="PodScheduled")].message}',
      );
      return s !== '//' ? s : '';
    }, 30_000);
  const nodeOf = (ns: string, pod: string) => eventually(() => jp(ns, pod, '{.spec.nodeName}'), 30_000);
  const ns = (name: string) => ok(['create', 'namespace', name]);

  before(async () => {
    c = await startCluster({ args: ['--sim-nodes', '3'] });
    await eventually(() => c.kubectl(['get', 'nodes', '--no-headers']).stdout.trim().split('\n').length === N, 30_000);
  });
  after(async () => {
    await c?.stop();
  });

  for (const f of ['nodeselector-disktype.yaml', 'node-affinity-required.yaml']) {
    it(`${f}: Pending with upstream's message until a node gets disktype=ssd, then there`, async () => {
      const space = f.startsWith('nodeselector') ? 'sel' : 'req';
      ns(space);
      ok(['apply', '-n', space, '-f', m(f)]);
      assert.equal(
        await scheduled(space, 'nginx'),
        `False/Unschedulable/0/${N} nodes are available: ${N} node(s) didn't match Pod's node affinity/selector. preemption: 0/${N} nodes are available: ${N} Preemption is not helpful for scheduling.`,
      );
      const ev = ok(['get', 'events', '-n', space, '--field-selector', 'reason=FailedScheduling', '-o', 'jsonpath={.items[0].type}/{.items[0].message}']);
      assert.match(ev, /^Warning\/0\/4 nodes are available: 4 node\(s\) didn't match Pod's node affinity\/selector\./);
      const target = space === 'sel' ? 'sim-node-1' : 'sim-node-2';
      ok(['label', 'nodes', target, 'disktype=ssd']);
      assert.equal(await nodeOf(space, 'nginx'), target);
      ok(['label', 'nodes', target, 'disktype-']);
    });
  }

  it('node-affinity-os-and-preferred.yaml: required kubernetes.io/os, the weight-50 preference wins', async () => {
    ns('pref');
    ok(['label', 'nodes', 'sim-node-0', 'label-1=key-1']);
    ok(['label', 'nodes', 'sim-node-2', 'label-2=key-2']);
    ok(['apply', '-n', 'pref', '-f', m('node-affinity-os-and-preferred.yaml')]);
    assert.equal(await nodeOf('pref', 'with-affinity-anti-affinity'), 'sim-node-2');
    ok(['label', 'nodes', 'sim-node-0', 'label-1-']);
    ok(['label', 'nodes', 'sim-node-2', 'label-2-']);
  });

  it('toleration.yaml: tolerates example-key NoSchedule taints; an intolerant pod is told why', async () => {
    ns('tol');
    ok(['taint', 'nodes', '--all', 'example-key=v:NoSchedule']);
    try {
      ok(['apply', '-n', 'tol', '-f', m('toleration.yaml')]);
      assert.ok(NODES.includes(await nodeOf('tol', 'nginx')));
      ok(['run', 'plain', '-n', 'tol', '--image=nginx', '--restart=Never']);
      assert.equal(
        await scheduled('tol', 'plain'),
        `False/Unschedulable/0/${N} nodes are available: ${N} node(s) had untolerated taint {example-key: v}. preemption: 0/${N} nodes are available: ${N} Preemption is not helpful for scheduling.`,
      );
    } finally {
      ok(['taint', 'nodes', '--all', 'example-key-']);
    }
    assert.ok(NODES.includes(await nodeOf('tol', 'plain')), 'scheduled once the taints are gone');
  });

  it("tsc-one-constraint.yaml: missing label, then the documentation's zones: must go to zoneB", async () => {
    ns('tsc');
    ok(['apply', '-n', 'tsc', '-f', m('tsc-one-constraint.yaml')]);
    assert.equal(
      await scheduled('tsc', 'mypod'),
      `False/Unschedulable/0/${N} nodes are available: ${N} node(s) didn't match pod topology spread constraints (missing required label). preemption: 0/${N} nodes are available: ${N} Preemption is not helpful for scheduling.`,
    );
    // two foo=bar pods placed in zoneA (e2e-node, sim-node-0), none in zoneB
    for (const [name, node] of [
      ['a1', 'e2e-node'],
      ['a2', 'sim-node-0'],
    ]) {
      const f = manifestFile(
        c.dir,
        `tsc-${name}.yaml`,
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels:\n    foo: bar\nspec:\n  nodeName: ${node}\n  containers:\n  - name: pause\n    image: registry.k8s.io/pause:3.10\n`,
      );
      ok(['apply', '-n', 'tsc', '-f', f]);
    }
    // zoneB first: labelling zoneA alone would give the retried pod a one-domain topology
    // (zoneA only, skew 0) where upstream places it in zoneA too
    ok(['label', 'nodes', 'sim-node-1', 'sim-node-2', 'zone=zoneB']);
    ok(['label', 'nodes', 'e2e-node', 'sim-node-0', 'zone=zoneA']);
    assert.match(await nodeOf('tsc', 'mypod'), /^sim-node-[12]$/);
    ok(['label', 'nodes', '--all', 'zone-']);
  });

  it('scheduling-gates.yaml: SchedulingGated until both gates are removed', async () => {
    ns('gates');
    ok(['apply', '-n', 'gates', '-f', m('scheduling-gates.yaml')]);
    assert.match(await eventually(() => c.kubectl(['get', 'pod', 'test-pod', '-n', 'gates', '--no-headers']).stdout), /test-pod\s+0\/1\s+SchedulingGated/);
    assert.equal(await scheduled('gates', 'test-pod'), 'False/SchedulingGated/Scheduling is blocked due to non-empty scheduling gates');
    ok(['patch', 'pod', 'test-pod', '-n', 'gates', '--type=json', '-p', '[{"op":"remove","path":"/spec/schedulingGates"}]']);
    assert.ok(NODES.includes(await nodeOf('gates', 'test-pod')));
  });

  it('cpu-too-big.yaml: Insufficient cpu, and no lower-priority victims', async () => {
    ns('cpu-example');
    ok(['apply', '-f', m('cpu-too-big.yaml')]);
    assert.equal(
      await scheduled('cpu-example', 'cpu-demo-2'),
      `False/Unschedulable/0/${N} nodes are available: ${N} Insufficient cpu. preemption: 0/${N} nodes are available: ${N} No preemption victims found for incoming pod.`,
    );
  });

  it('pvc-pod.yaml: the missing PVC is a PreFilter message without per-node counts', async () => {
    ns('pvc');
    ok(['apply', '-n', 'pvc', '-f', m('pvc-pod.yaml')]);
    assert.equal(
      await scheduled('pvc', 'task-pv-pod'),
      `False/Unschedulable/0/${N} nodes are available: persistentvolumeclaim "task-pv-claim" not found. preemption: 0/${N} nodes are available: ${N} Preemption is not helpful for scheduling.`,
    );
  });

  it('high-priority-pod.yaml: Forbidden without the class; with it, spec.priority comes from the class', async () => {
    ns('prio');
    const probe = manifestFile(
      c.dir,
      'probe.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: probe\nspec:\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n',
    );
    ok(['apply', '-n', 'prio', '-f', probe]);
    assert.equal(jp('prio', 'probe', '{.spec.preemptionPolicy}'), 'PreemptLowerPriority', 'the Priority admission plugin sets the default preemptionPolicy');
    const r = c.kubectl(['apply', '-n', 'prio', '-f', m('high-priority-pod.yaml')]);
    assert.notEqual(r.code, 0);
    assert.equal(
      r.stderr.trim(),
      `Error from server (Forbidden): error when creating "${m('high-priority-pod.yaml')}": pods "high-priority" is forbidden: no PriorityClass with name high was found`,
    );
    ok(['create', 'priorityclass', 'high', '--value=1000']);
    ok(['apply', '-n', 'prio', '-f', m('high-priority-pod.yaml')]);
    assert.equal(jp('prio', 'high-priority', '{.spec.priority}/{.spec.preemptionPolicy}'), '1000/PreemptLowerPriority');
  });

  it('preemption: a higher-priority pod evicts a lower-priority one and is nominated, then bound', async () => {
    ns('preempt');
    // with the Priority admission plugin priorities come from classes, else from spec.priority
    const probe = manifestFile(
      c.dir,
      'probe2.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: probe\nspec:\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n',
    );
    ok(['apply', '-n', 'preempt', '-f', probe]);
    const admission = jp('preempt', 'probe', '{.spec.preemptionPolicy}') === 'PreemptLowerPriority';
    if (admission) {
      ok(['create', 'priorityclass', 'e2e-low', '--value=10']);
      ok(['create', 'priorityclass', 'e2e-high', '--value=100']);
    }
    ok(['label', 'nodes', 'sim-node-1', 'preempt=yes']);
    const pod = (name: string, prio: number, cpu: string) =>
      manifestFile(
        c.dir,
        `${name}.yaml`,
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  ${admission ? `priorityClassName: e2e-${prio > 50 ? 'high' : 'low'}` : `priority: ${prio}`}\n  terminationGracePeriodSeconds: 0\n  nodeSelector:\n    preempt: "yes"\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n    resources:\n      requests:\n        cpu: ${cpu}\n`,
      );
    const alloc = ok(['get', 'node', 'sim-node-1', '-o', 'jsonpath={.status.allocatable.cpu}']);
    const milli = alloc.endsWith('m') ? Number(alloc.slice(0, -1)) : Number(alloc) * 1000;
    ok(['apply', '-n', 'preempt', '-f', pod('victim', 10, `${Math.floor(milli * 0.7)}m`)]);
    assert.equal(await nodeOf('preempt', 'victim'), 'sim-node-1');
    ok(['apply', '-n', 'preempt', '-f', pod('preemptor', 100, `${Math.floor(milli * 0.5)}m`)]);
    const ev = await eventually(
      () => ok(['get', 'events', '-n', 'preempt', '--field-selector', 'reason=Preempted', '-o', 'jsonpath={.items[0].involvedObject.name}: {.items[0].message}']),
      30_000,
    );
    assert.match(ev, /^victim: Preempted by pod [0-9a-f-]+ on node sim-node-1$/);
    assert.equal(await nodeOf('preempt', 'preemptor'), 'sim-node-1');
    await eventually(() => c.kubectl(['get', 'pod', 'victim', '-n', 'preempt']).code !== 0, 30_000);
    ok(['label', 'nodes', 'sim-node-1', 'preempt-']);
  });
});
