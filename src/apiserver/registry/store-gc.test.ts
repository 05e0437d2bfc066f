import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { R } from '../../client/types.js';
import { startTestCluster, type TestCluster } from '../../controllers/util/test-cluster.js';
import { W } from '../../controllers/util/resources.js';
import { defaultGarbageCollectionPolicy, deletionFinalizersForGarbageCollection } from './store.js';

const deploy = { group: 'apps', version: 'v1', resource: 'deployments' };
const job = { group: 'batch', version: 'v1', resource: 'jobs' };

describe('deletion finalizers for garbage collection', () => {
  it("follows the strategies' default policies", () => {
    assert.equal(defaultGarbageCollectionPolicy(deploy), 'DeleteDependents');
    assert.equal(defaultGarbageCollectionPolicy(job), 'OrphanDependents');
    assert.equal(defaultGarbageCollectionPolicy({ group: '', version: 'v1', resource: 'replicationcontrollers' }), 'OrphanDependents');
    assert.equal(defaultGarbageCollectionPolicy({ group: 'events.k8s.io', version: 'v1', resource: 'events' }), 'Unsupported');
    assert.equal(defaultGarbageCollectionPolicy({ group: 'batch', version: 'v1', resource: 'cronjobs' }), 'DeleteDependents');
  });

  it('adds, swaps and removes orphan / foregroundDeletion', () => {
    assert.deepEqual(deletionFinalizersForGarbageCollection(deploy, undefined, 'Foreground'), ['foregroundDeletion']);
    assert.deepEqual(deletionFinalizersForGarbageCollection(deploy, ['x'], 'Orphan'), ['x', 'orphan']);
    assert.equal(deletionFinalizersForGarbageCollection(deploy, undefined, 'Background'), undefined);
    assert.equal(deletionFinalizersForGarbageCollection(deploy, undefined, undefined), undefined);
    assert.deepEqual(deletionFinalizersForGarbageCollection(job, undefined, undefined), ['orphan']);
    assert.equal(deletionFinalizersForGarbageCollection(job, undefined, 'Background'), undefined);
    assert.deepEqual(deletionFinalizersForGarbageCollection(deploy, ['orphan', 'x'], 'Background'), ['x']);
    assert.deepEqual(deletionFinalizersForGarbageCollection(deploy, ['orphan'], 'Foreground'), ['foregroundDeletion']);
    // no policy: an existing GC finalizer wins over the default
    assert.equal(deletionFinalizersForGarbageCollection(job, ['foregroundDeletion'], undefined), undefined);
    assert.equal(deletionFinalizersForGarbageCollection({ group: '', version: 'v1', resource: 'events' }, undefined, 'Foreground'), undefined);
  });
});

describe('store delete with a propagation policy', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });

  it('Foreground keeps the object with deletionTimestamp and foregroundDeletion; removing the finalizer removes it', async () => {
    await c.client.create(R.configmaps, 'default', cm('fg'));
    const res = await c.client.delete(R.configmaps, 'default', 'fg', { propagationPolicy: 'Foreground' });
    assert.deepEqual(res.metadata?.finalizers, ['foregroundDeletion']);
    assert.ok(res.metadata?.deletionTimestamp);
    assert.equal(res.metadata?.deletionGracePeriodSeconds, 0);
    const got = await c.client.get(R.configmaps, 'default', 'fg');
    assert.deepEqual(got.metadata?.finalizers, ['foregroundDeletion']);
    // a second delete with Background drops the finalizer and the object goes
    await c.client.delete(R.configmaps, 'default', 'fg', { propagationPolicy: 'Background' });
    await assert.rejects(c.client.get(R.configmaps, 'default', 'fg'), /not found/);
  });

  it('Orphan adds the orphan finalizer; Background deletes at once; Jobs orphan by default', async () => {
    await c.client.create(R.configmaps, 'default', cm('or'));
    const res = await c.client.delete(R.configmaps, 'default', 'or', { propagationPolicy: 'Orphan' });
    assert.deepEqual(res.metadata?.finalizers, ['orphan']);
    await c.client.patch(R.configmaps, 'default', 'or', 'merge', { metadata: { finalizers: null } });
    await assert.rejects(c.client.get(R.configmaps, 'default', 'or'), /not found/);

    await c.client.create(R.configmaps, 'default', cm('bg'));
    await c.client.delete(R.configmaps, 'default', 'bg', { propagationPolicy: 'Background' });
    await assert.rejects(c.client.get(R.configmaps, 'default', 'bg'), /not found/);

    await c.client.create(W.jobs, 'default', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    const j = await c.client.delete(W.jobs, 'default', 'j');
    assert.deepEqual(j.metadata?.finalizers, ['orphan']);
  });

  it("a strategy's own delete step (a CRD getting its cleanup finalizer) gets the policy's finalizers too", async () => {
    const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };
    await c.client.create(crds, '', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const res = await c.client.delete(crds, '', 'widgets.gc.example.com', { propagationPolicy: 'Foreground' });
    assert.deepEqual([...(res.metadata?.finalizers ?? [])].sort(), ['customresourcecleanup.apiextensions.k8s.io', 'foregroundDeletion']);
    assert.ok(res.metadata?.deletionTimestamp);
  });
});
