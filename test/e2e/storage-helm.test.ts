/**
 * helm 3 with a chart that has persistence (test/fixtures/charts/storage-demo: a
 * standalone PersistentVolumeClaim mounted by a Deployment, and a StatefulSet with
 * volumeClaimTemplates), on the simulated runtime: `helm install --wait` returns once
 * every claim is Bound (of the default StorageClass) and the pods are Ready;
 * `helm uninstall --wait` deletes the standalone claim (and, reclaim Delete, its volume)
 * and leaves the StatefulSet's claims Bound, as upstream (the StatefulSet's default
 * persistentVolumeClaimRetentionPolicy is Retain and helm does not own those claims).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { helm } from '../support/helm.js';
import { eventually, ROOT, startCluster, type Cluster } from './harness.js';
import { kubectlHelpers } from './storage-support.js';

const CHART = join(ROOT, 'test', 'fixtures', 'charts', 'storage-demo');

describe('e2e: helm chart with persistence (sim runtime)', { timeout: 180_000 }, () => {
  let c: Cluster;
  const { get: json, exists } = kubectlHelpers(() => c);

  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('install --wait binds every claim; uninstall deletes the chart’s claim and keeps the StatefulSet’s', async () => {
    const inst = await helm(c.kubeconfig, ['install', 'demo', CHART, '--wait', '--timeout', '120s']);
    assert.equal(inst.code, 0, inst.stderr);
    assert.match(inst.stdout, /^STATUS: deployed$/m);

    const claims = ['demo-web', 'data-demo-db-0', 'data-demo-db-1'];
    for (const n of claims) {
      const pvc = json(['pvc', n]);
      assert.equal(pvc.status.phase, 'Bound', `${n} Bound when helm returns`);
      assert.equal(pvc.spec.storageClassName, 'local-path', `${n}: DefaultStorageClass`);
      assert.equal(json(['pv', pvc.spec.volumeName]).status.phase, 'Bound');
    }
    // the StatefulSet's claims carry its selector labels and no owner (retention policy Retain)
    const sts = json(['statefulset', 'demo-db']);
    assert.deepEqual(sts.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(sts.status.readyReplicas, 2);
    const db0 = json(['pvc', 'data-demo-db-0']);
    assert.equal(db0.metadata.labels['app.kubernetes.io/component'], 'db');
    assert.equal(db0.metadata.ownerReferences, undefined);
    const webPV = json(['pvc', 'demo-web']).spec.volumeName as string;
    const dbPVs = ['data-demo-db-0', 'data-demo-db-1'].map((n) => json(['pvc', n]).spec.volumeName as string);

    const un = await helm(c.kubeconfig, ['uninstall', 'demo', '--wait', '--timeout', '120s']);
    assert.equal(un.code, 0, un.stderr);
    assert.equal(un.stdout.trim(), 'release "demo" uninstalled');
    assert.equal(exists(['pvc', 'demo-web']), false, 'the chart’s own claim is deleted');
    assert.equal(exists(['statefulset', 'demo-db']), false);
    for (const n of ['data-demo-db-0', 'data-demo-db-1']) assert.equal(json(['pvc', n]).status.phase, 'Bound', `${n} kept`);
    for (const pv of dbPVs) assert.equal(json(['pv', pv]).status.phase, 'Bound');
    // reclaim Delete: the external-provisioner deletes the standalone claim's volume
    await eventually(() => !exists(['pv', webPV]) || undefined, 30_000);

    // a second install finds the kept claims and binds its StatefulSet pods to them again
    const again = await helm(c.kubeconfig, ['install', 'demo', CHART, '--wait', '--timeout', '120s']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      ['data-demo-db-0', 'data-demo-db-1'].map((n) => json(['pvc', n]).spec.volumeName),
      dbPVs,
    );
    assert.notEqual(json(['pvc', 'demo-web']).spec.volumeName, webPV, 'a new volume for the new claim');
  });
});
