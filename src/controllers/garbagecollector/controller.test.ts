import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import { listPods, startTestCluster, type TestCluster, waitFor } from '../util/test-cluster.js';
import { W } from '../util/resources.js';
import type { RunningController } from '../util/context.js';
import { startGarbageCollector } from './controller.js';

const rs = (name: string): KObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  }) as KObject;

const ownerRef = (o: KObject, block = true): OwnerReference => ({
  apiVersion: o.apiVersion!,
  kind: o.kind!,
  name: o.metadata!.name!,
  uid: o.metadata!.uid!,
  controller: true,
  blockOwnerDeletion: block,
});

const pod = (name: string, owners: OwnerReference[], finalizers?: string[]): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { gc: 'test' }, ownerReferences: owners, finalizers },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  }) as KObject;

const gone = async (c: TestCluster, ref: typeof W.replicasets | typeof R.pods, name: string): Promise<boolean> => {
  try {
    await c.client.get(ref, 'default', name);
    return false;
  } catch {
    return true;
  }
};

describe('garbage collector', () => {
  let c: TestCluster;
  let gc: RunningController;
  before(async () => {
    c = await startTestCluster();
    // a pod whose owner never existed, present before the collector starts
    await c.client.create(R.pods, 'default', pod('stale', [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'nope', uid: '00000000-0000-0000-0000-000000000001' }]));
    // one worker: dependents are handled in the order the collector saw them, so a later
    // dependent's deletion proves the earlier ones were handled
    gc = await startGarbageCollector({ client: c.client, recorder: c.recorder, informers: c.informers, discoveryResyncMs: 0, workers: 1 });
  });
  after(async () => {
    await gc?.stop();
    await c?.stop();
  });

  it('deletes a dependent whose owner is absent', async () => {
    await waitFor(() => gone(c, R.pods, 'stale'), 5000, 'stale pod deleted');
  });

  it('Background: dependents go after the owner', async () => {
    const owner = await c.client.create(W.replicasets, 'default', rs('bg'));
    await c.client.create(R.pods, 'default', pod('bg-1', [ownerRef(owner)]));
    await c.client.create(R.pods, 'default', pod('bg-2', [ownerRef(owner)]));
    // with the owner still there, nothing happens: a dependent of an absent owner created
    // after them is deleted, so the collector has handled bg-1 and bg-2 by then
    await c.client.create(R.pods, 'default', pod('bg-probe', [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'nope', uid: '00000000-0000-0000-0000-000000000002' }]));
    await waitFor(() => gone(c, R.pods, 'bg-probe'), 5000, 'later dependent of an absent owner deleted');
    assert.equal((await listPods(c.client, 'default', 'gc=test')).filter((p) => p.metadata?.name?.startsWith('bg-')).length, 2);
    await c.client.delete(W.replicasets, 'default', 'bg', { propagationPolicy: 'Background' });
    await waitFor(async () => (await gone(c, R.pods, 'bg-1')) && (await gone(c, R.pods, 'bg-2')), 5000, 'dependents deleted');
  });

  it('Foreground: the owner stays with foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await c.client.create(W.replicasets, 'default', rs('fg'));
    await c.client.create(R.pods, 'default', pod('fg-1', [ownerRef(owner)], ['test.k8ts.io/hold']));
    await c.client.create(R.pods, 'default', pod('fg-2', [ownerRef(owner)]));
    await c.client.delete(W.replicasets, 'default', 'fg', { propagationPolicy: 'Foreground' });
    await waitFor(() => gone(c, R.pods, 'fg-2'), 5000, 'fg-2 deleted');
    const held = await c.client.get(R.pods, 'default', 'fg-1');
    assert.ok(held.metadata?.deletionTimestamp, 'the held pod is being deleted');
    const o = await c.client.get(W.replicasets, 'default', 'fg');
    assert.deepEqual(o.metadata?.finalizers, ['foregroundDeletion']);
    await c.client.patch(R.pods, 'default', 'fg-1', 'merge', { metadata: { finalizers: null } });
    await waitFor(() => gone(c, W.replicasets, 'fg'), 5000, 'owner deleted after its dependents');
  });

  it('Orphan: the references are removed, the dependents stay, the owner goes', async () => {
    const owner = await c.client.create(W.replicasets, 'default', rs('or'));
    const other = await c.client.create(W.replicasets, 'default', rs('or-other'));
    await c.client.create(R.pods, 'default', pod('or-1', [ownerRef(owner)]));
    await c.client.create(R.pods, 'default', pod('or-2', [ownerRef(owner), { ...ownerRef(other), controller: false }]));
    await c.client.delete(W.replicasets, 'default', 'or', { propagationPolicy: 'Orphan' });
    await waitFor(() => gone(c, W.replicasets, 'or'), 5000, 'owner deleted');
    const p1 = await c.client.get(R.pods, 'default', 'or-1');
    const p2 = await c.client.get(R.pods, 'default', 'or-2');
    assert.equal(p1.metadata?.ownerReferences?.length ?? 0, 0);
    assert.deepEqual(
      p2.metadata?.ownerReferences?.map((r) => r.name),
      ['or-other'],
    );
    assert.ok(!p1.metadata?.deletionTimestamp);
  });

  it('a dependent with another existing owner loses only the dangling reference', async () => {
    const a = await c.client.create(W.replicasets, 'default', rs('two-a'));
    const b = await c.client.create(W.replicasets, 'default', rs('two-b'));
    await c.client.create(R.pods, 'default', pod('two-1', [ownerRef(a), { ...ownerRef(b), controller: false }]));
    await c.client.delete(W.replicasets, 'default', 'two-a', { propagationPolicy: 'Background' });
    await waitFor(
      async () => {
        const p = await c.client.get(R.pods, 'default', 'two-1');
        return p.metadata?.ownerReferences?.length === 1 && p.metadata.ownerReferences[0]!.name === 'two-b';
      },
      5000,
      'dangling reference removed',
    );
    assert.ok(!(await c.client.get(R.pods, 'default', 'two-1')).metadata?.deletionTimestamp);
  });
});
