/**
 * Published example manifests from test/fixtures/manifests reach the outcome EXPECTED.md
 * gives, on the simulated runtime, through the real kubectl: two-container-pod,
 * init-containers, qos-*, scheduling-gates, cpu-too-big, nodeselector-disktype,
 * node-affinity-required, toleration (simple-pod is in basic.test.ts).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, eventually, MANIFESTS, type Cluster } from './harness.js';

const m = (f: string): string => join(MANIFESTS, f);

describe('e2e: example manifests (simulated runtime)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ args: ['--sim-nodes', '2'] });
    for (const ns of ['qos-example', 'cpu-example']) assert.equal(c.kubectl(['create', 'namespace', ns]).code, 0);
  });
  after(async () => {
    await c?.stop();
  });

  const jp = (args: string[], path: string): string => c.kubectl(['get', ...args, '-o', `jsonpath=${path}`]).stdout;
  const condition = (ns: string, pod: string, type: string): string =>
    jp(
      ['pod', pod, '-n', ns],
      `{.status.conditions[?(@.type=="${type}")].status}/{.status.conditions[?(@.type=="${type}")].reason}/{.status.conditions[?(@.type=="${type}")].message}`,
    );

  it('two-container-pod: debian completes, nginx runs: 1/2 NotReady, phase Running', async () => {
    assert.equal(c.kubectl(['apply', '-f', m('two-container-pod.yaml')]).stdout.trim(), 'pod/two-containers created');
    const row = await eventually(() => {
      const out = c.kubectl(['get', 'pod', 'two-containers', '--no-headers']).stdout;
      return /1\/2\s+NotReady/.test(out) ? out : '';
    }, 20_000);
    assert.match(row, /two-containers\s+1\/2\s+NotReady\s+0/);
    assert.equal(jp(['pod', 'two-containers'], '{.status.phase}'), 'Running');
    assert.equal(jp(['pod', 'two-containers'], '{.status.containerStatuses[?(@.name=="debian-container")].state.terminated.reason}'), 'Completed');
    assert.equal(jp(['pod', 'two-containers'], '{.status.containerStatuses[?(@.name=="debian-container")].restartCount}'), '0');
  });

  it('init-containers: wget has no network, so Init:Error then Init:CrashLoopBackOff; nginx never starts', async () => {
    assert.equal(c.kubectl(['apply', '-f', m('init-containers.yaml')]).stdout.trim(), 'pod/init-demo created');
    const seen = new Set<string>();
    await eventually(
      () => {
        const out = c.kubectl(['get', 'pod', 'init-demo', '--no-headers']).stdout;
        const st = /init-demo\s+\S+\s+(\S+)/.exec(out)?.[1];
        if (st) seen.add(st);
        return seen.has('Init:CrashLoopBackOff');
      },
      30_000,
      200,
    );
    assert.ok(seen.has('Init:Error') || seen.has('Init:CrashLoopBackOff'), [...seen].join(','));
    assert.equal(jp(['pod', 'init-demo'], '{.status.phase}'), 'Pending');
    assert.equal(jp(['pod', 'init-demo'], '{.status.containerStatuses[0].state.waiting.reason}'), 'PodInitializing');
    const ev = c.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=init-demo', '-o', 'jsonpath={.items[*].reason}']).stdout;
    assert.match(ev, /BackOff/);
  });

  it('qos classes: Guaranteed, Burstable, BestEffort', async () => {
    for (const [f, name, qos] of [
      ['qos-guaranteed.yaml', 'qos-demo', 'Guaranteed'],
      ['qos-burstable.yaml', 'qos-demo-2', 'Burstable'],
      ['qos-besteffort.yaml', 'qos-demo-3', 'BestEffort'],
    ] as const) {
      const r = c.kubectl(['apply', '-f', m(f)]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(jp(['pod', name, '-n', 'qos-example'], '{.status.qosClass}'), qos);
    }
    const d = c.kubectl(['describe', 'pod', 'qos-demo', '-n', 'qos-example']).stdout;
    assert.match(d, /QoS Class:\s+Guaranteed/);
  });

  it('scheduling-gates: 0/1 SchedulingGated until both gates are removed', async () => {
    assert.equal(c.kubectl(['apply', '-f', m('scheduling-gates.yaml')]).code, 0);
    await eventually(() => /test-pod\s+0\/1\s+SchedulingGated/.test(c.kubectl(['get', 'pod', 'test-pod', '--no-headers']).stdout));
    assert.equal(jp(['pod', 'test-pod'], '{.spec.schedulingGates}'), '[{"name":"example.com/foo"},{"name":"example.com/bar"}]');
    assert.match(condition('default', 'test-pod', 'PodScheduled'), /^False\/SchedulingGated\//);
    const add = c.kubectl(['patch', 'pod', 'test-pod', '--type=json', '-p', '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/baz"}}]']);
    assert.equal(add.code, 1, 'gates cannot be added');
    assert.match(add.stderr, /spec\.schedulingGates/);
    assert.equal(c.kubectl(['patch', 'pod', 'test-pod', '--type=json', '-p', '[{"op":"remove","path":"/spec/schedulingGates"}]']).code, 0);
    await eventually(() => jp(['pod', 'test-pod'], '{.spec.nodeName}') !== '');
    await eventually(() => /test-pod\s+1\/1\s+Running/.test(c.kubectl(['get', 'pod', 'test-pod', '--no-headers']).stdout), 20_000);
  });

  it('cpu-too-big: Pending with Insufficient cpu and the preemption suffix', async () => {
    assert.equal(c.kubectl(['apply', '-f', m('cpu-too-big.yaml')]).code, 0);
    const msg = await eventually(() => {
      const s = condition('cpu-example', 'cpu-demo-2', 'PodScheduled');
      return s.startsWith('False/Unschedulable/') ? s : '';
    });
    assert.equal(msg, 'False/Unschedulable/0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
    const ev = c.kubectl(['get', 'events', '-n', 'cpu-example', '--field-selector', 'reason=FailedScheduling', '-o', 'jsonpath={.items[0].message}']).stdout;
    assert.equal(ev, '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
    assert.match(c.kubectl(['get', 'pod', 'cpu-demo-2', '-n', 'cpu-example', '--no-headers']).stdout, /cpu-demo-2\s+0\/1\s+Pending/);
  });

  for (const f of ['nodeselector-disktype.yaml', 'node-affinity-required.yaml']) {
    it(`${f}: Pending until a node is labelled disktype=ssd, then scheduled there`, async () => {
      assert.equal(c.kubectl(['apply', '-f', m(f)]).code, 0);
      const msg = await eventually(() => {
        const s = condition('default', 'nginx', 'PodScheduled');
        return s.startsWith('False/Unschedulable/') ? s : '';
      });
      assert.equal(
        msg,
        "False/Unschedulable/0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      );
      assert.equal(c.kubectl(['label', 'nodes', 'sim-node-1', 'disktype=ssd', '--overwrite']).code, 0);
      await eventually(() => jp(['pod', 'nginx'], '{.spec.nodeName}') === 'sim-node-1', 20_000);
      assert.equal(c.kubectl(['label', 'nodes', 'sim-node-1', 'disktype-']).code, 0);
      assert.equal(c.kubectl(['delete', 'pod', 'nginx', '--wait=true', '--timeout=30s']).code, 0);
    });
  }

  it('toleration.yaml: schedules (onto tainted or untainted nodes)', async () => {
    for (const n of ['e2e-node', 'sim-node-0']) assert.equal(c.kubectl(['taint', 'nodes', n, 'example-key=v:NoSchedule']).code, 0);
    assert.equal(c.kubectl(['apply', '-f', m('toleration.yaml')]).code, 0);
    await eventually(() => jp(['pod', 'nginx'], '{.spec.nodeName}') !== '', 20_000);
    await eventually(() => /nginx\s+1\/1\s+Running/.test(c.kubectl(['get', 'pod', 'nginx', '--no-headers']).stdout), 20_000);
    for (const n of ['e2e-node', 'sim-node-0']) assert.equal(c.kubectl(['taint', 'nodes', n, 'example-key=v:NoSchedule-']).code, 0);
  });
});
