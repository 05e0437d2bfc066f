import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import type { RunningController } from '../util/context.js';
import type { Pod } from '../util/pods.js';
import { W } from '../util/resources.js';
import { makePodReady, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { startDisruptionController } from './controller.js';
import type { PDB } from './status.js';

type RS = ReplicaSet & KObject;

async function createPod(c: TestCluster, name: string, labels: Record<string, string>, owner?: RS, ready = true): Promise<Pod> {
  const p = await c.client.create<Pod>(R.pods, 'default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true }] } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  return ready ? makePodReady(c.client, p) : p;
}

const createPDB = (c: TestCluster, name: string, spec: PDB['spec']): Promise<PDB> =>
  c.client.create<PDB>(W.poddisruptionbudgets, 'default', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });

const getPDB = (c: TestCluster, name: string): Promise<PDB> => c.client.get<PDB>(W.poddisruptionbudgets, 'default', name);

const statusOf = async (c: TestCluster, name: string, pred: (p: PDB) => boolean, what: string): Promise<PDB> =>
  waitFor(
    async () => {
      const p = await getPDB(c, name);
      return pred(p) ? p : undefined;
    },
    5000,
    what,
  );

describe('disruption controller', () => {
  let c: TestCluster;
  let ctl: RunningController;
  before(async () => {
    c = await startTestCluster();
    ctl = await startDisruptionController({ client: c.client, recorder: c.recorder, informers: c.informers });
  });
  after(async () => {
    await ctl?.stop();
    await c?.stop();
  });

  it('minAvailable 2 of 3 ready pods allows one disruption; an eviction takes it and the pod stays counted as disrupted', async () => {
    for (const n of ['a1', 'a2', 'a3']) await createPod(c, n, { app: 'a' });
    await createPDB(c, 'a', { minAvailable: 2, selector: { matchLabels: { app: 'a' } } });
    const p = await statusOf(c, 'a', (x) => x.status?.observedGeneration === 1, 'status of a');
    assert.equal(p.status?.disruptionsAllowed, 1);
    assert.equal(p.status?.currentHealthy, 3);
    assert.equal(p.status?.desiredHealthy, 2);
    assert.equal(p.status?.expectedPods, 3);
    assert.deepEqual(
      p.status?.conditions?.map(({ type, status, reason, message, observedGeneration }) => ({ type, status, reason, message, observedGeneration })),
      [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 1 }],
    );

    // the eviction API decrements; the controller keeps a1 out of the healthy count while
    // it is being deleted, so no second disruption is allowed
    await c.client.createSubresource(R.pods, 'default', 'a1', 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a1', namespace: 'default' } } as KObject);
    const after = await statusOf(c, 'a', (x) => x.status?.currentHealthy === 2, 'a1 no longer healthy');
    assert.equal(after.status?.disruptionsAllowed, 0);
    assert.equal(after.status?.conditions?.[0]?.reason, 'InsufficientPods');
    await assert.rejects(
      c.client.createSubresource(R.pods, 'default', 'a2', 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a2', namespace: 'default' } } as KObject),
      /Cannot evict pod as it would violate the pod's disruption budget/,
    );
    // a replacement becomes ready: one disruption again
    await createPod(c, 'a4', { app: 'a' });
    await statusOf(c, 'a', (x) => x.status?.disruptionsAllowed === 1 && x.status.currentHealthy === 3, 'replacement counted');
  });

  it('maxUnavailable percent is taken of the ReplicaSet scale, not of the pods present', async () => {
    const rs = await c.client.create<RS>(W.replicasets, 'default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'b' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'b' } }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    for (const n of ['b1', 'b2', 'b3']) await createPod(c, n, { app: 'b' }, rs);
    await createPDB(c, 'b', { maxUnavailable: '50%', selector: { matchLabels: { app: 'b' } } });
    const p = await statusOf(c, 'b', (x) => x.status?.observedGeneration === 1, 'status of b');
    assert.deepEqual([p.status?.expectedPods, p.status?.desiredHealthy, p.status?.currentHealthy, p.status?.disruptionsAllowed], [4, 2, 3, 1]);
    // a new generation of the budget is observed
    await c.client.patch(W.poddisruptionbudgets, 'default', 'b', 'merge', { spec: { maxUnavailable: '25%' } });
    const p2 = await statusOf(c, 'b', (x) => x.status?.observedGeneration === 2, 'generation 2');
    assert.deepEqual([p2.status?.desiredHealthy, p2.status?.disruptionsAllowed], [3, 0]);
  });

  it('a budget without pods: NoPods event, nothing allowed', async () => {
    await createPDB(c, 'empty', { minAvailable: 1, selector: { matchLabels: { app: 'none' } } });
    const p = await statusOf(c, 'empty', (x) => x.status?.observedGeneration === 1, 'status of empty');
    assert.deepEqual([p.status?.expectedPods, p.status?.disruptionsAllowed], [0, 0]);
    assert.ok(c.recorder.events.some((e) => e.obj.metadata?.name === 'empty' && e.type === 'Normal' && e.reason === 'NoPods' && e.message === 'No matching pods found'));
  });

  it('percent budgets: unmanaged pods give UnmanagedPods; a pod whose controller is gone fails the sync safely', async () => {
    await createPod(c, 'u1', { app: 'u' });
    await createPDB(c, 'u', { maxUnavailable: 1, selector: { matchLabels: { app: 'u' } } });
    const u = await statusOf(c, 'u', (x) => x.status?.observedGeneration === 1, 'status of u');
    assert.deepEqual([u.status?.expectedPods, u.status?.currentHealthy, u.status?.disruptionsAllowed], [0, 1, 0]);
    assert.ok(
      c.recorder.events.some(
        (e) =>
          e.reason === 'UnmanagedPods' &&
          e.message.startsWith(
            'Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: u,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged.',
          ),
      ),
    );

    const ghost = { metadata: { name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' } } as RS;
    await createPod(c, 'g1', { app: 'g' }, ghost);
    await createPDB(c, 'g', { minAvailable: '50%', selector: { matchLabels: { app: 'g' } } });
    const g = await statusOf(c, 'g', (x) => !!x.status?.conditions?.length, 'failSafe of g');
    assert.equal(g.status?.disruptionsAllowed, 0);
    assert.equal(g.status?.observedGeneration ?? 0, 0);
    assert.deepEqual(
      g.status?.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
      [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "g1"' }],
    );
    assert.ok(
      c.recorder.events.some(
        (e) => e.reason === 'CalculateExpectedPodCountFailed' && e.message === 'Failed to calculate the number of expected pods: found no controllers for pod "g1"',
      ),
    );

    // a DaemonSet has no scale subresource (found through discovery)
    const ds = await c.client.create<RS>(W.daemonsets, 'default', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    } as KObject as RS);
    const dp = await c.client.create<Pod>(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'd1', labels: { app: 'd' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: ds.metadata!.uid!, controller: true }] },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    await makePodReady(c.client, dp);
    await createPDB(c, 'd', { maxUnavailable: '10%', selector: { matchLabels: { app: 'd' } } });
    const d = await statusOf(c, 'd', (x) => !!x.status?.conditions?.length, 'failSafe of d');
    assert.equal(d.status?.conditions?.[0]?.message, 'daemonsets.apps does not implement the scale subresource');
  });

  it('resets a DisruptionTarget condition left on a live pod for over 2 minutes', async () => {
    const p = await createPod(c, 's1', { app: 's' });
    const old = new Date(Date.now() - 3 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const cur = await c.client.get<Pod>(R.pods, 'default', 's1');
    cur.status!.conditions!.push({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: old });
    await c.client.update(R.pods, 'default', cur, { subresource: 'status' });
    const reset = await waitFor(
      async () => {
        const x = await c.client.get<Pod>(R.pods, 'default', p.metadata!.name!);
        const cond = x.status?.conditions?.find((k) => k.type === 'DisruptionTarget');
        return cond?.status === 'False' ? cond : undefined;
      },
      5000,
      'DisruptionTarget reset',
    );
    assert.notEqual(reset.lastTransitionTime, old);
  });
});
