import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import { FakeClock, flush } from '../../util/fake-clock.js';
import type { RunningController } from '../util/context.js';
import type { Pod } from '../util/pods.js';
import { startTestCluster, type TestCluster } from '../util/test-cluster.js';
import { startNodeLifecycleController } from './controller.js';
import type { Node } from './health.js';

const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

describe('node lifecycle controller (fake clock)', () => {
  let c: TestCluster;
  let ctl: RunningController;
  const clock = new FakeClock(Date.now());
  const getNode = (name: string): Promise<Node> => c.client.get<Node>(R.nodes, '', name);

  /** the kubelet of `kubelet-node`: renews its Lease now */
  const renew = async (): Promise<void> => {
    const l = await c.client.get<Lease & KObject>(R.leases, 'kube-node-lease', 'kubelet-node');
    await c.client.update(R.leases, 'kube-node-lease', { ...l, spec: { ...l.spec, renewTime: new Date(clock.now()).toISOString().replace('Z', '000Z') } });
  };
  /** advances `ms` in 5 s steps, renewing the kubelet-node Lease on each when `heartbeat` */
  const advance = async (ms: number, heartbeat: boolean): Promise<void> => {
    for (let t = 0; t < ms; t += 5000) {
      if (heartbeat) await renew();
      await clock.advance(5000);
      await flush(20);
    }
  };

  before(async () => {
    c = await startTestCluster();
    const now = rfc3339(clock.now());
    await c.client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-node-lease' } });
    const posted = await c.client.create<Node>(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'kubelet-node' } });
    await c.client.update(
      R.nodes,
      '',
      {
        ...posted,
        status: {
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
        },
      },
      { subresource: 'status' },
    );
    await c.client.create(R.leases, 'kube-node-lease', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kubelet-node' },
      spec: { holderIdentity: 'kubelet-node', leaseDurationSeconds: 40, renewTime: new Date(clock.now()).toISOString().replace('Z', '000Z') },
    });
    await c.client.create(R.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'silent-node' } });
    await c.client.create<Pod>(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'on-kubelet-node' },
      spec: { nodeName: 'kubelet-node', containers: [{ name: 'c', image: 'nginx' }] },
    });
    const p = await c.client.get<Pod>(R.pods, 'default', 'on-kubelet-node');
    await c.client.update(
      R.pods,
      'default',
      { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } },
      { subresource: 'status' },
    );
    ctl = await startNodeLifecycleController({ client: c.client, recorder: c.recorder, informers: c.informers, clock });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('a node whose kubelet never posted status gets Unknown conditions and unreachable taints after the startup grace period (60 s)', async () => {
    await advance(55_000, true);
    assert.equal((await getNode('silent-node')).status?.conditions, undefined, 'nothing before the grace period');
    await advance(10_000, true);
    const n = await getNode('silent-node');
    const created = n.metadata!.creationTimestamp;
    assert.deepEqual(
      n.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message, x.lastHeartbeatTime === created]),
      ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((t) => [t, 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.', true]),
    );
    await advance(5000, true);
    const tainted = await getNode('silent-node');
    assert.deepEqual(tainted.spec?.taints?.map((t) => `${t.key}:${t.effect}`).sort(), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    assert.ok(tainted.spec?.taints?.every((t) => typeof t.timeAdded === 'string'));
    // the node heard from stays Ready and untainted
    const ok = await getNode('kubelet-node');
    assert.equal(ok.status?.conditions?.[0]?.status, 'True');
    assert.equal(ok.spec?.taints, undefined);
  });

  it('a node that stops renewing its Lease goes Unknown after 50 s: NodeNotReady, its pods not ready; with no Ready node left the NoExecute taints go (full disruption)', async () => {
    await advance(45_000, false);
    assert.equal((await getNode('kubelet-node')).status?.conditions?.[0]?.status, 'True');
    await advance(15_000, false);
    const n = await getNode('kubelet-node');
    const ready = n.status!.conditions!.find((x) => x.type === 'Ready')!;
    assert.deepEqual([ready.status, ready.reason, ready.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    assert.ok(c.recorder.lines().includes('NodeNotReady: Node kubelet-node status is now: NodeNotReady'));
    assert.ok(c.recorder.lines().includes('NodeNotReady: Node is not ready'));
    const pod = await c.client.get<Pod>(R.pods, 'default', 'on-kubelet-node');
    assert.equal(pod.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'False');
    await advance(10_000, false);
    for (const name of ['kubelet-node', 'silent-node']) {
      const t = (await getNode(name)).spec?.taints?.map((x) => `${x.key}:${x.effect}`);
      assert.deepEqual(t, ['node.kubernetes.io/unreachable:NoSchedule'], name);
    }
  });
});
