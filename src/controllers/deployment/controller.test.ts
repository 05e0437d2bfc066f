import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningController } from '../util/context.js';
import { listPods, startFakeKubelet, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { W } from '../util/resources.js';
import { type ReplicaSet, startReplicaSetController } from '../replicaset/controller.js';
import { startDeploymentController } from './controller.js';
import type { Deployment } from './util.js';

const nginx = (name: string, replicas: number, strategy?: Deployment['spec'] extends infer S ? (S extends { strategy?: infer T } ? T : never) : never): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    strategy,
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }] } },
  },
});

async function rsOf(c: TestCluster, d: string): Promise<ReplicaSet[]> {
  return (await c.client.list<ReplicaSet>(W.replicasets, 'default')).items.filter((rs) => rs.metadata?.ownerReferences?.[0]?.name === d);
}

describe('Deployment controller', () => {
  let c: TestCluster;
  const ctls: RunningController[] = [];
  let kubelet: { stop(): void };
  before(async () => {
    c = await startTestCluster();
    ctls.push(await startReplicaSetController({ client: c.client, recorder: c.recorder, informers: c.informers }));
    ctls.push(await startDeploymentController({ client: c.client, recorder: c.recorder, informers: c.informers }));
    kubelet = startFakeKubelet(c.client);
  });
  after(async () => {
    kubelet?.stop();
    for (const x of ctls) await x.stop();
    await c?.stop();
  });

  it('creates <name>-<hash> ReplicaSet and pods labelled with pod-template-hash, reports 2/2 available and completes', async () => {
    const d = await c.client.create<Deployment>(W.deployments, 'default', nginx('nginx-deployment', 2));
    const done = await waitFor(
      async () => {
        const cur = await c.client.get<Deployment>(W.deployments, 'default', 'nginx-deployment');
        const p = cur.status?.conditions?.find((x) => x.type === 'Progressing');
        return p?.reason === 'NewReplicaSetAvailable' ? cur : undefined;
      },
      8000,
      'rollout complete',
    );
    assert.equal(done.status?.readyReplicas, 2);
    assert.equal(done.status?.availableReplicas, 2);
    assert.equal(done.status?.updatedReplicas, 2);
    assert.equal(done.status?.observedGeneration, done.metadata?.generation);
    assert.equal(done.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    const avail = done.status?.conditions?.find((x) => x.type === 'Available');
    assert.equal(avail?.status, 'True');
    assert.equal(avail?.reason, 'MinimumReplicasAvailable');
    assert.equal(avail?.message, 'Deployment has minimum availability.');
    const [rs] = await rsOf(c, 'nginx-deployment');
    assert.ok(rs);
    const hash = rs.metadata!.labels!['pod-template-hash']!;
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs.metadata!.name, `nginx-deployment-${hash}`);
    assert.deepEqual(rs.spec?.selector?.matchLabels, { app: 'nginx-deployment', 'pod-template-hash': hash });
    assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'], '2');
    assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/max-replicas'], '3');
    assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.deepEqual(rs.metadata?.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx-deployment', uid: d.metadata!.uid, controller: true, blockOwnerDeletion: true },
    ]);
    const pods = await listPods(c.client, 'default', 'app=nginx-deployment');
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.metadata?.labels?.['pod-template-hash'], hash);
      assert.equal(p.metadata?.ownerReferences?.[0]?.name, rs.metadata!.name);
      assert.match(p.metadata!.name!, new RegExp(`^nginx-deployment-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    }
    assert.ok(c.recorder.lines().includes(`ScalingReplicaSet: Scaled up replica set nginx-deployment-${hash} to 2`));
  });

  it('rolls out a new image: a second ReplicaSet with revision 2 takes over, the old one is scaled to 0', async () => {
    const cur = await c.client.get<Deployment>(W.deployments, 'default', 'nginx-deployment');
    const oldRS = (await rsOf(c, 'nginx-deployment'))[0]!;
    cur.spec!.template.spec!.containers[0]!.image = 'nginx:1.16.1';
    await c.client.update(W.deployments, 'default', cur);
    const done = await waitFor(
      async () => {
        const d = await c.client.get<Deployment>(W.deployments, 'default', 'nginx-deployment');
        const p = d.status?.conditions?.find((x) => x.type === 'Progressing');
        return d.status?.observedGeneration === d.metadata?.generation && p?.reason === 'NewReplicaSetAvailable' && d.status?.replicas === 2 ? d : undefined;
      },
      10000,
      'second rollout',
    );
    assert.equal(done.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
    const rss = await rsOf(c, 'nginx-deployment');
    assert.equal(rss.length, 2);
    const old = rss.find((r) => r.metadata?.uid === oldRS.metadata?.uid)!;
    const fresh = rss.find((r) => r.metadata?.uid !== oldRS.metadata?.uid)!;
    assert.equal(old.spec?.replicas, 0);
    assert.equal(fresh.spec?.replicas, 2);
    assert.equal(fresh.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.equal(fresh.spec?.template?.spec?.containers[0]?.image, 'nginx:1.16.1');
    assert.ok(c.recorder.lines().some((l) => l === `ScalingReplicaSet: Scaled down replica set ${old.metadata!.name} to 0 from 1`));
  });

  it('scales through the scale subresource (a scaling event resizes the active ReplicaSet)', async () => {
    await c.client.patch(W.deployments, 'default', 'nginx-deployment', 'merge', { spec: { replicas: 4 } }, { subresource: 'scale' });
    const d = await waitFor(
      async () => {
        const x = await c.client.get<Deployment>(W.deployments, 'default', 'nginx-deployment');
        return x.status?.availableReplicas === 4 && x.status.observedGeneration === x.metadata?.generation ? x : undefined;
      },
      8000,
      '4 available',
    );
    assert.equal(d.spec?.replicas, 4);
    const active = (await rsOf(c, 'nginx-deployment')).filter((r) => (r.spec?.replicas ?? 0) > 0);
    assert.equal(active.length, 1);
    assert.equal(active[0]!.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'], '4');
  });

  it('Recreate: scales the old ReplicaSet to zero before creating the new one', async () => {
    await c.client.create<Deployment>(W.deployments, 'default', nginx('recreate', 2, { type: 'Recreate' }));
    await waitFor(async () => (await c.client.get<Deployment>(W.deployments, 'default', 'recreate')).status?.availableReplicas === 2, 8000, 'recreate available');
    const cur = await c.client.get<Deployment>(W.deployments, 'default', 'recreate');
    cur.spec!.template.spec!.containers[0]!.image = 'nginx:1.16.1';
    await c.client.update(W.deployments, 'default', cur);
    await waitFor(
      async () => {
        const d = await c.client.get<Deployment>(W.deployments, 'default', 'recreate');
        const rss = await rsOf(c, 'recreate');
        return (
          d.status?.observedGeneration === d.metadata?.generation &&
          d.status?.updatedReplicas === 2 &&
          d.status.availableReplicas === 2 &&
          d.status.replicas === 2 &&
          rss.length === 2
        );
      },
      10000,
      'recreate rollout',
    );
    const rss = await rsOf(c, 'recreate');
    assert.equal(rss.length, 2);
    assert.deepEqual(rss.map((r) => r.spec?.replicas).sort(), [0, 2]);
    const lines = c.recorder.lines();
    const oldName = rss.find((r) => r.spec?.replicas === 0)!.metadata!.name!;
    const newName = rss.find((r) => r.spec?.replicas === 2)!.metadata!.name!;
    const down = lines.indexOf(`ScalingReplicaSet: Scaled down replica set ${oldName} to 0 from 2`);
    const up = lines.indexOf(`ScalingReplicaSet: Scaled up replica set ${newName} to 2`);
    assert.ok(down >= 0 && up > down, 'old ReplicaSet scaled down before the new one was created');
  });
});
