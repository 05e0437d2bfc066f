import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { R } from '../../client/types.js';
import { listPods, makePodReady, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { W } from '../util/resources.js';
import { calculateReplicaSetStatus, type ReplicaSet, startReplicaSetController } from './controller.js';
import type { RunningController } from '../util/context.js';
import type { Pod } from '../util/pods.js';

const rsManifest = (name: string, replicas: number): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, labels: { tier: 'frontend' } },
  spec: {
    replicas,
    selector: { matchLabels: { tier: 'frontend' } },
    template: { metadata: { labels: { tier: 'frontend' } }, spec: { containers: [{ name: 'php', image: 'gb-frontend:v5' }] } },
  },
});

describe('ReplicaSet controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  before(async () => {
    c = await startTestCluster();
    ctl = await startReplicaSetController({ client: c.client, recorder: c.recorder, informers: c.informers });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('adopts a matching bare pod, creates the rest with controller owner references, replaces deleted pods', async () => {
    await c.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bare', labels: { tier: 'frontend' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    const rs = await c.client.create<ReplicaSet>(W.replicasets, 'default', rsManifest('frontend', 3));
    const pods = await waitFor(
      async () => {
        const l = await listPods(c.client, 'default', 'tier=frontend');
        return l.length === 3 && l.every((p) => p.metadata?.ownerReferences?.length) ? l : undefined;
      },
      5000,
      '3 owned pods',
    );
    for (const p of pods) {
      assert.deepEqual(p.metadata?.ownerReferences, [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'frontend', uid: rs.metadata!.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    assert.ok(
      pods.some((p) => p.metadata?.name === 'bare'),
      'the bare pod was adopted',
    );
    const created = pods.filter((p) => p.metadata?.name !== 'bare');
    assert.equal(created.length, 2);
    for (const p of created) assert.match(p.metadata!.name!, /^frontend-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(c.recorder.lines().filter((l) => l.startsWith('SuccessfulCreate: Created pod: frontend-')).length, 2);

    await c.client.delete(R.pods, 'default', created[0]!.metadata!.name!);
    await waitFor(
      async () => {
        const l = await listPods(c.client, 'default', 'tier=frontend');
        return l.length === 3 && !l.some((p) => p.metadata?.name === created[0]!.metadata!.name);
      },
      5000,
      'a replacement pod',
    );
  });

  it('reports ready replicas in status and scales down through the scale subresource', async () => {
    for (const p of await listPods(c.client, 'default', 'tier=frontend')) await makePodReady(c.client, p);
    const rs = await waitFor(
      async () => {
        const r = await c.client.get<ReplicaSet>(W.replicasets, 'default', 'frontend');
        return r.status?.readyReplicas === 3 && r.status.availableReplicas === 3 ? r : undefined;
      },
      5000,
      'readyReplicas 3',
    );
    assert.equal(rs.status?.replicas, 3);
    assert.equal(rs.status?.fullyLabeledReplicas, 3);
    assert.equal(rs.status?.observedGeneration, rs.metadata?.generation);

    const scale = await c.client.patch<{ spec: { replicas: number }; status: { selector: string } }>(
      W.replicasets,
      'default',
      'frontend',
      'merge',
      { spec: { replicas: 1 } },
      { subresource: 'scale' },
    );
    assert.equal(scale.spec.replicas, 1);
    assert.equal(scale.status.selector, 'tier=frontend');
    await waitFor(async () => (await listPods(c.client, 'default', 'tier=frontend')).filter((p) => !p.metadata?.deletionTimestamp).length === 1, 5000, 'scale down to 1');
    assert.ok(c.recorder.lines().some((l) => l.startsWith('SuccessfulDelete: Deleted pod: ')));
  });

  it('releases a pod whose labels stop matching', async () => {
    const [p] = (await listPods(c.client, 'default', 'tier=frontend')).filter((x) => !x.metadata?.deletionTimestamp);
    await c.client.patch(R.pods, 'default', p!.metadata!.name!, 'merge', { metadata: { labels: { tier: 'other' } } });
    const released = await waitFor(
      async () => {
        const cur = await c.client.get<Pod>(R.pods, 'default', p!.metadata!.name!);
        return cur.metadata?.ownerReferences?.length ? undefined : cur;
      },
      5000,
      'release',
    );
    assert.equal(released.metadata?.ownerReferences?.length ?? 0, 0);
    await waitFor(
      async () => (await listPods(c.client, 'default', 'tier=frontend')).filter((x) => !x.metadata?.deletionTimestamp).length === 1,
      5000,
      'a new pod for the released one',
    );
  });
});

describe('calculateReplicaSetStatus', () => {
  it('sets ReplicaFailure FailedCreate from a manage error and removes it after success', () => {
    const rs = rsManifest('x', 2);
    const st = calculateReplicaSetStatus(rs, [], new Error('pods "x" is forbidden: exceeded quota'), Date.parse('2025-01-01T00:00:00Z'));
    assert.equal(st.replicas, 0);
    assert.deepEqual(st.conditions, [
      { type: 'ReplicaFailure', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'FailedCreate', message: 'pods "x" is forbidden: exceeded quota' },
    ]);
    const ok = calculateReplicaSetStatus({ ...rs, status: st }, [], undefined, Date.now());
    assert.equal(ok.conditions, undefined);
  });
});
