/**
 * The PV controller on an in-process API server: a claim created with no class while
 * there is no default class gets the default class once one exists (upstream
 * RetroactiveDefaultStorageClass), while a claim with `storageClassName: ""` keeps it
 * and binds only a volume without a class.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim as PVC } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../api/resource.js';

type PersistentVolumeClaim = PVC & KObject;
import { SR } from '../../../client/storage-resources.js';
import { R } from '../../../client/types.js';
import { startTestCluster, waitFor, type TestCluster } from '../../util/test-cluster.js';
import type { RunningController } from '../../util/context.js';
import { startPersistentVolumeController } from './controller.js';

const claim = (name: string, storageClassName?: string): PersistentVolumeClaim =>
  ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(storageClassName === undefined ? {} : { storageClassName }) },
  }) as PersistentVolumeClaim;

describe('persistentvolume-binder: default class, class-less claims, reserved volumes', { timeout: 30_000 }, () => {
  let c: TestCluster;
  let pvc: RunningController;
  before(async () => {
    c = await startTestCluster();
    pvc = await startPersistentVolumeController({ client: c.client, recorder: c.recorder, informers: c.informers });
  });
  after(async () => {
    await pvc?.stop();
    await c?.stop();
  });

  it('gives a class-less claim the default class once one exists; "" stays and binds a volume without class', async () => {
    const { client } = c;
    await client.create(R.persistentvolumeclaims, 'default', claim('later'));
    await client.create(R.persistentvolumeclaims, 'default', claim('none', ''));
    const get = (n: string): Promise<PersistentVolumeClaim> => client.get<PersistentVolumeClaim>(R.persistentvolumeclaims, 'default', n);
    await waitFor(() => c.recorder.lines().filter((l) => l === 'FailedBinding: no persistent volumes available for this claim and no storage class is set').length >= 2);
    assert.equal((await get('later')).spec?.storageClassName, undefined);

    await client.create(SR.storageclasses, '', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/nfs',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    });
    await waitFor(async () => (await get('later')).spec?.storageClassName === 'standard', 5000, 'the default class on the claim');
    // handed to the class's provisioner from then on
    await waitFor(async () => (await get('later')).metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'] === 'example.com/nfs');
    assert.equal((await get('none')).spec?.storageClassName, '');

    // "" binds only a volume without a class: the one of class standard stays Available
    for (const n of ['later', 'none']) await client.delete(R.persistentvolumeclaims, 'default', n);
    for (const [name, cls] of [
      ['classed', 'standard'],
      ['classless', undefined],
    ] as const) {
      await client.create(R.persistentvolumes, '', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name },
        spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: `/tmp/${name}` }, ...(cls ? { storageClassName: cls } : {}) },
      });
    }
    await client.create(R.persistentvolumeclaims, 'default', claim('none2', ''));
    const bound = await waitFor(async () => {
      const p = await get('none2');
      return p.status?.phase === 'Bound' ? p : undefined;
    });
    assert.equal(bound.spec?.volumeName, 'classless');
  });

  it('a volume reserved for a claim (claimRef by name) binds it without pv.kubernetes.io/bound-by-controller on the volume', async () => {
    const { client } = c;
    await client.create(R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' } });
    for (const [pv, pvcName, volumeName] of [
      ['foo-pv', 'foo-pvc', 'foo-pv'],
      ['bar-pv', 'bar-pvc', undefined],
    ] as const) {
      await client.create(R.persistentvolumes, '', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: pv },
        spec: {
          storageClassName: '',
          claimRef: { name: pvcName, namespace: 'foo' },
          accessModes: ['ReadWriteOnce'],
          capacity: { storage: '1Gi' },
          hostPath: { path: `/tmp/${pv}` },
        },
      });
      const cl = claim(pvcName, '');
      await client.create(R.persistentvolumeclaims, 'foo', { ...cl, metadata: { name: pvcName, namespace: 'foo' }, spec: { ...cl.spec, ...(volumeName ? { volumeName } : {}) } });
    }
    const get = (n: string): Promise<PersistentVolumeClaim> => client.get<PersistentVolumeClaim>(R.persistentvolumeclaims, 'foo', n);
    for (const n of ['foo-pvc', 'bar-pvc']) await waitFor(async () => (await get(n)).status?.phase === 'Bound', 5000, `${n} Bound`);
    for (const pv of ['foo-pv', 'bar-pv']) {
      const v = await client.get<KObject & { spec: { claimRef: { uid?: string } } }>(R.persistentvolumes, '', pv);
      assert.equal(v.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], undefined, pv);
      assert.ok(v.spec.claimRef.uid, `${pv}: the claim's uid completed`);
    }
    // the claim the user pointed at its volume was not bound by the controller; the other was
    assert.deepEqual((await get('foo-pvc')).metadata?.annotations, { 'pv.kubernetes.io/bind-completed': 'yes' });
    assert.deepEqual((await get('bar-pvc')).metadata?.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
  });
});
