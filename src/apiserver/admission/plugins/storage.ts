/**
 * The storage admission plugins:
 * - DefaultStorageClass: a claim created without `storageClassName` gets the default
 *   StorageClass (annotation `storageclass.kubernetes.io/is-default-class: "true"`; the
 *   newest when several are marked, then by name).
 * - StorageObjectInUseProtection: new claims get the `kubernetes.io/pvc-protection`
 *   finalizer and new volumes `kubernetes.io/pv-protection`.
 * - PersistentVolumeClaimResize: a claim may only grow when its StorageClass has
 *   `allowVolumeExpansion: true`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/storage/storageclass/setdefault/admission.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/admission/storage/persistentvolume/resize/admission.go
 */
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { compareQuantity, parseQuantity } from '../../../apimachinery/quantity.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { getDefaultClass, isDefaultClass } from '../../../api/storage/v1/storageclass/default-class.js';

const STORAGE_CLASSES = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };
const BETA_CLASS_ANN = 'volume.beta.kubernetes.io/storage-class';

const isCore = (a: AdmissionAttributes, resource: string): boolean => a.resource.group === '' && a.resource.resource === resource && !a.subresource;

export { isDefaultClass };
/** Upstream GetDefaultClass: the newest default class (then the smallest name), or undefined. */
export const defaultClass = getDefaultClass;

export const defaultStorageClass: AdmissionPlugin = {
  name: 'DefaultStorageClass',
  async admit(a, lookup) {
    if (a.operation !== 'CREATE' || !isCore(a, 'persistentvolumeclaims') || !a.object) return;
    const pvc = a.object as unknown as PersistentVolumeClaim;
    // upstream PersistentVolumeClaimHasClass: an explicit "" (the volume-binding of
    // classless claims) or the beta class annotation is a choice; only nil is defaulted
    if (pvc.spec?.storageClassName !== undefined && pvc.spec.storageClassName !== null) return;
    if (pvc.metadata?.annotations?.[BETA_CLASS_ANN] !== undefined) return;
    const def = defaultClass((await lookup.list(STORAGE_CLASSES, '')) as unknown as StorageClass[]);
    if (!def?.metadata?.name) return;
    pvc.spec = { ...pvc.spec, storageClassName: def.metadata.name };
  },
};

function addFinalizer(meta: ObjectMeta | undefined, f: string): void {
  if (!meta) return;
  if (!meta.finalizers?.includes(f)) meta.finalizers = [...(meta.finalizers ?? []), f];
}

export const storageObjectInUseProtection: AdmissionPlugin = {
  name: 'StorageObjectInUseProtection',
  async admit(a) {
    if (a.operation !== 'CREATE' || !a.object) return;
    const meta = (a.object as { metadata?: ObjectMeta }).metadata;
    if (isCore(a, 'persistentvolumeclaims')) addFinalizer(meta, 'kubernetes.io/pvc-protection');
    else if (isCore(a, 'persistentvolumes')) addFinalizer(meta, 'kubernetes.io/pv-protection');
  },
};

export const persistentVolumeClaimResize: AdmissionPlugin = {
  name: 'PersistentVolumeClaimResize',
  async validate(a, lookup) {
    if (a.operation !== 'UPDATE' || !isCore(a, 'persistentvolumeclaims') || !a.object || !a.oldObject) return;
    const pvc = a.object as unknown as PersistentVolumeClaim;
    const old = a.oldObject as unknown as PersistentVolumeClaim;
    const nw = pvc.spec?.resources?.requests?.storage;
    const ow = old.spec?.resources?.requests?.storage;
    if (nw === undefined || ow === undefined || compareQuantity(parseQuantity(String(nw)), parseQuantity(String(ow))) <= 0) return;
    // growing only makes sense for a bound claim; the strategy rejects the rest
    if (old.status?.phase !== 'Bound') return;
    const clsName = pvc.spec?.storageClassName ?? '';
    const cls = clsName ? ((await lookup.get(STORAGE_CLASSES, '', clsName)) as unknown as StorageClass | undefined) : undefined;
    if (!cls?.allowVolumeExpansion)
      throw newForbidden(
        { group: '', resource: 'persistentvolumeclaims' },
        a.name,
        'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
      );
  },
};
