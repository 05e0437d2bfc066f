import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject, Obj, ObjectLookup } from '../../../api/resource.js';
import { StatusError } from '../../../apimachinery/errors.js';
import type { AdmissionAttributes, Operation } from '../types.js';
import { defaultClass, defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from './storage.js';

const sc = (name: string, created: string, isDefault: boolean, extra: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, creationTimestamp: created, ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
  provisioner: 'example.com/x',
  ...extra,
});

const lookupOf = (classes: KObject[]): ObjectLookup => ({
  get: async (_r, _ns, name) => classes.find((c) => c.metadata?.name === name),
  list: async () => classes,
});

function attrs(resource: string, op: Operation, object: Record<string, unknown>, oldObject?: Record<string, unknown>): AdmissionAttributes {
  return {
    operation: op,
    resource: { group: '', version: 'v1', resource },
    kind: { group: '', version: 'v1', kind: resource === 'persistentvolumes' ? 'PersistentVolume' : 'PersistentVolumeClaim' },
    subresource: '',
    namespace: resource === 'persistentvolumes' ? '' : 'default',
    name: 'data',
    object: object as Obj,
    oldObject: oldObject as Obj | undefined,
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
  };
}

describe('storage admission plugins', () => {
  it('DefaultStorageClass: a claim without a class gets the newest default class; "" and a named class stay', async () => {
    const classes = [sc('old-default', '2024-01-01T00:00:00Z', true), sc('new-default', '2025-01-01T00:00:00Z', true), sc('plain', '2026-01-01T00:00:00Z', false)];
    assert.equal(defaultClass(classes as never)?.metadata?.name, 'new-default');
    const a = attrs('persistentvolumeclaims', 'CREATE', { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } });
    await defaultStorageClass.admit!(a, lookupOf(classes));
    assert.equal((a.object as unknown as { spec: { storageClassName?: string } }).spec.storageClassName, 'new-default');
    for (const cls of ['', 'plain']) {
      const b = attrs('persistentvolumeclaims', 'CREATE', { metadata: { name: 'data' }, spec: { storageClassName: cls } });
      await defaultStorageClass.admit!(b, lookupOf(classes));
      assert.equal((b.object as unknown as { spec: { storageClassName?: string } }).spec.storageClassName, cls);
    }
    // the beta class annotation is a choice of class too (PersistentVolumeClaimHasClass)
    const beta = attrs('persistentvolumeclaims', 'CREATE', { metadata: { name: 'data', annotations: { 'volume.beta.kubernetes.io/storage-class': 'plain' } }, spec: {} });
    await defaultStorageClass.admit!(beta, lookupOf(classes));
    assert.equal((beta.object as unknown as { spec: { storageClassName?: string } }).spec.storageClassName, undefined);
    // equal timestamps: the smallest name
    assert.equal(defaultClass([sc('b', '2025-01-01T00:00:00Z', true), sc('a', '2025-01-01T00:00:00Z', true)] as never)?.metadata?.name, 'a');
    const none = attrs('persistentvolumeclaims', 'CREATE', { metadata: { name: 'data' }, spec: {} });
    await defaultStorageClass.admit!(none, lookupOf([classes[2]!]));
    assert.equal((none.object as unknown as { spec: { storageClassName?: string } }).spec.storageClassName, undefined);
  });

  it('StorageObjectInUseProtection: the protection finalizers on new claims and volumes', async () => {
    const c = attrs('persistentvolumeclaims', 'CREATE', { metadata: { name: 'data', finalizers: ['x'] }, spec: {} });
    await storageObjectInUseProtection.admit!(c, lookupOf([]));
    assert.deepEqual((c.object as unknown as { metadata: { finalizers: string[] } }).metadata.finalizers, ['x', 'kubernetes.io/pvc-protection']);
    const v = attrs('persistentvolumes', 'CREATE', { metadata: { name: 'pv' }, spec: {} });
    await storageObjectInUseProtection.admit!(v, lookupOf([]));
    assert.deepEqual((v.object as unknown as { metadata: { finalizers: string[] } }).metadata.finalizers, ['kubernetes.io/pv-protection']);
  });

  it('PersistentVolumeClaimResize: growing a bound claim needs allowVolumeExpansion', async () => {
    const claim = (size: string) => ({ metadata: { name: 'data' }, spec: { storageClassName: 'fixed', resources: { requests: { storage: size } } }, status: { phase: 'Bound' } });
    const grow = attrs('persistentvolumeclaims', 'UPDATE', claim('2Gi'), claim('1Gi'));
    const err = await persistentVolumeClaimResize.validate!(grow, lookupOf([sc('fixed', '2024-01-01T00:00:00Z', false)])).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof StatusError);
    assert.equal(err.status.code, 403);
    assert.equal(
      err.status.message,
      'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    await persistentVolumeClaimResize.validate!(grow, lookupOf([sc('fixed', '2024-01-01T00:00:00Z', false, { allowVolumeExpansion: true })]));
    // shrinking or unchanged: not this plugin's concern
    await persistentVolumeClaimResize.validate!(attrs('persistentvolumeclaims', 'UPDATE', claim('1Gi'), claim('1Gi')), lookupOf([]));
  });
});
