/**
 * The all-in-one server's control plane as kube-system pods (as on kubeadm), read with
 * the real kubectl: `kubectl get pods -n kube-system`, and `kubectl logs -n kube-system
 * kube-scheduler-<node>` showing the scheduler's own klog lines for a pod just created,
 * at the verbosity set at run time with `PUT /debug/flags/v`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { eventually, kubectlPath, startCluster, type Cluster } from './harness.js';

interface PodJSON {
  metadata: { name: string; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
  spec: { nodeName?: string; hostNetwork?: boolean; priorityClassName?: string };
  status: { phase?: string; containerStatuses?: { ready: boolean; containerID?: string }[] };
}

describe('control-plane components as kube-system pods', { timeout: 180_000 }, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('kube-apiserver, kube-scheduler and kube-controller-manager pods of the node, Running and ready from their health checks, marked as processes', async () => {
    const names = ['kube-apiserver-e2e-node', 'kube-controller-manager-e2e-node', 'kube-scheduler-e2e-node'];
    const list = await eventually(() => {
      const r = c.kubectl(['get', 'pods', '-n', 'kube-system', '-l', 'tier=control-plane', '-o', 'json']);
      const items = r.code === 0 ? (JSON.parse(r.stdout) as { items: PodJSON[] }).items : [];
      return items.length === 3 && items.every((p) => p.status.containerStatuses?.[0]?.ready) ? items : undefined;
    }, 30_000);
    assert.deepEqual(list.map((p) => p.metadata.name).sort(), names);
    for (const p of list) {
      const component = p.metadata.name.replace(/-e2e-node$/, '');
      assert.equal(p.metadata.annotations?.['k8ts.io/process'], `${component} in k8ts server (not a container)`);
      assert.equal(p.metadata.annotations?.['kubernetes.io/config.source'], 'process');
      assert.equal(p.metadata.annotations?.['kubernetes.io/config.mirror'], p.metadata.annotations?.['kubernetes.io/config.hash']);
      assert.deepEqual(
        p.metadata.ownerReferences?.map((o) => [o.kind, o.name]),
        [['Node', 'e2e-node']],
      );
      assert.equal(p.spec.nodeName, 'e2e-node');
      assert.equal(p.spec.hostNetwork, true);
      assert.equal(p.spec.priorityClassName, 'system-node-critical');
      assert.match(p.status.containerStatuses![0]!.containerID!, /^process:\/\/\d+$/);
    }
    const table = c.kubectl(['get', 'pods', '-n', 'kube-system', '--no-headers']);
    for (const n of names) assert.match(table.stdout, new RegExp(`^${n}\\s+1/1\\s+Running\\s+0\\s`, 'm'));
  });

  it('kubectl logs of kube-scheduler-<node> shows its klog lines; binds appear once --v is raised to 2 through /debug/flags/v', async () => {
    const logs = () => c.kubectl(['logs', '-n', 'kube-system', 'kube-scheduler-e2e-node']).stdout;
    assert.match(logs(), /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+:\d+\] "Starting Kubernetes Scheduler" version="v1\.32\.0"$/m);

    // at the default --v=0 a bind is not logged (upstream logs it at V(2))
    assert.equal(c.kubectl(['run', 'quiet', '--image=nginx']).code, 0);
    await eventually(() => c.kubectl(['get', 'pod', 'quiet', '-o', 'jsonpath={.spec.nodeName}']).stdout === 'e2e-node');

    const get = c.kubectl(['get', '--raw', '/debug/flags/v']);
    assert.notEqual(get.code, 0);
    assert.match(get.stderr, /NotAcceptable/);
    const bad = c.kubectl(['replace', '--raw', '/debug/flags/v', '-f', '-'], { input: 'two' });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /BadRequest/);
    const set = c.kubectl(['replace', '--raw', '/debug/flags/v', '-f', '-'], { input: '2' });
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout.trim(), 'successfully set klog.logging.verbosity to 2');

    assert.equal(c.kubectl(['run', 'loud', '--image=nginx']).code, 0);
    const out = await eventually(() => {
      const l = logs();
      return l.includes('pod="default/loud"') ? l : undefined;
    }, 30_000);
    assert.match(out, /^I\d{4} [\d:.]+ +\d+ \S+\] "Successfully bound pod to node" pod="default\/loud" node="e2e-node" evaluatedNodes=1 feasibleNodes=1$/m);
    assert.doesNotMatch(out, /pod="default\/quiet"/, 'the bind at --v=0 was not logged');

    // an unschedulable pod: upstream's V(2) line with the scheduler's reason
    assert.equal(c.kubectl(['run', 'nowhere', '--image=nginx', '--overrides={"spec":{"nodeSelector":{"disk":"ssd"}}}']).code, 0);
    await eventually(() => logs().includes('"Unable to schedule pod; no fit; waiting" pod="default/nowhere" err="0/1 nodes are available'), 30_000);

    // the API server's own log
    assert.match(c.kubectl(['logs', '-n', 'kube-system', 'kube-apiserver-e2e-node']).stdout, /"Serving securely on 127\.0\.0\.1:\d+"/);
  });

  it('kubectl logs -f follows the component log: a bind after the follow began arrives in the stream', async () => {
    const follower = spawn(kubectlPath(), ['--kubeconfig', c.kubeconfig, 'logs', '-f', '-n', 'kube-system', 'kube-scheduler-e2e-node'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    follower.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(() => out.includes('"Starting Kubernetes Scheduler"'), 30_000);
      assert.equal(c.kubectl(['run', 'followed', '--image=nginx']).code, 0);
      await eventually(() => out.includes('"Successfully bound pod to node" pod="default/followed"'), 30_000);
      assert.equal(follower.exitCode, null, 'still following');
    } finally {
      follower.kill();
    }
  });
});
