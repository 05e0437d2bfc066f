/**
 * What the PV controller, the scheduler-side binding and the CSI sidecars agree on: the
 * annotations, finalizers and event reasons of persistent volumes, and upstream's
 * claim ↔ volume matching (FindMatchingVolume: volume mode, pre-binding, label
 * selector, storage class, access modes, the smallest volume that is large enough).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/persistentvolume/util/util.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/volume/events/event.go
 */
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { parseQuantity, compareQuantity } from '../../../apimachinery/quantity.js';
import { labelSelectorAsSelector } from '../../../apimachinery/labels.js';

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
export const ANN_DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANN_BETA_DEFAULT_STORAGE_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** the no-op provisioner of statically provisioned classes */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';

/** Event reasons (upstream pkg/controller/volume/events). */
export const Ev = {
  FailedBinding: 'FailedBinding',
  VolumeMismatch: 'VolumeMismatch',
  VolumeFailedDelete: 'VolumeFailedDelete',
  ExternalProvisioning: 'ExternalProvisioning',
  ProvisioningFailed: 'ProvisioningFailed',
  ProvisioningSucceeded: 'ProvisioningSucceeded',
  Provisioning: 'Provisioning',
  WaitForFirstConsumer: 'WaitForFirstConsumer',
  WaitForPodScheduled: 'WaitForPodScheduled',
  ClaimLost: 'ClaimLost',
  ClaimMisbound: 'ClaimMisbound',
  ExternalExpanding: 'ExternalExpanding',
  Resizing: 'Resizing',
  VolumeResizeFailed: 'VolumeResizeFailed',
  VolumeResizeSuccess: 'VolumeResizeSuccessful',
} as const;

/** Whether the object carries annotation `key` (any value). */
export const hasAnn = (o: { metadata?: { annotations?: Record<string, string> } }, key: string): boolean => Object.hasOwn(o.metadata?.annotations ?? {}, key);

/** The requested storage of a claim (undefined when it asks for none). */
export function claimRequest(pvc: PersistentVolumeClaim): string | undefined {
  return pvc.spec?.resources?.requests?.storage as string | undefined;
}

/** Upstream IsDelayBindingMode: the claim's class binds WaitForFirstConsumer. */
export function isDelayBinding(pvc: PersistentVolumeClaim, classOf: (name: string) => StorageClass | undefined): boolean {
  const cls = pvc.spec?.storageClassName;
  if (!cls) return false;
  return classOf(cls)?.volumeBindingMode === 'WaitForFirstConsumer';
}

/** Upstream IsVolumeBoundToClaim: the volume's claimRef names this claim (uid empty or equal). */
export function isVolumeBoundToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const r = pv.spec?.claimRef;
  if (!r) return false;
  if (r.name !== pvc.metadata?.name || r.namespace !== pvc.metadata?.namespace) return false;
  return !r.uid || r.uid === pvc.metadata?.uid;
}

/** Upstream CheckAccessModes: every mode the claim asks for is offered by the volume. */
function accessModesFit(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const have = new Set(pv.spec?.accessModes ?? []);
  return (pvc.spec?.accessModes ?? []).every((m) => have.has(m));
}

/**
 * Upstream FindMatchingVolume: the volume a claim binds to — one pre-bound to it, else
 * the smallest available volume of the claim's class, volume mode and access modes
 * that matches its selector and is large enough. With `delayBinding` only pre-bound
 * volumes are returned (the scheduler picks the others).
 */
export function findMatchingVolume(pvc: PersistentVolumeClaim, volumes: readonly PersistentVolume[], delayBinding: boolean): PersistentVolume | undefined {
  const want = parseQuantity(claimRequest(pvc) ?? '0');
  const selector = pvc.spec?.selector ? labelSelectorAsSelector(pvc.spec.selector) : undefined;
  const mode = pvc.spec?.volumeMode ?? 'Filesystem';
  const cls = pvc.spec?.storageClassName ?? '';
  let best: PersistentVolume | undefined;
  for (const pv of volumes) {
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== mode) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    const size = parseQuantity(String(pv.spec?.capacity?.storage ?? '0'));
    if (isVolumeBoundToClaim(pv, pvc)) {
      // pre-bound to this claim: taken when it fits, whatever else
      if (compareQuantity(size, want) >= 0 && (pv.spec?.storageClassName ?? '') === cls) return pv;
      continue;
    }
    if (pv.spec?.claimRef) continue;
    if (pv.status?.phase && pv.status.phase !== 'Available') continue;
    if (delayBinding) continue;
    if (selector && !selector.matches(pv.metadata?.labels)) continue;
    if ((pv.spec?.storageClassName ?? '') !== cls) continue;
    if (!accessModesFit(pv, pvc)) continue;
    if (compareQuantity(size, want) < 0) continue;
    if (!best || compareQuantity(size, parseQuantity(String(best.spec?.capacity?.storage ?? '0'))) < 0) best = pv;
  }
  return best;
}

/** The provisioner a claim waits for: its class's, unless the class is statically provisioned. */
export function provisionerOf(cls: StorageClass | undefined): string | undefined {
  const p = cls?.provisioner;
  return p && p !== NOT_SUPPORTED_PROVISIONER ? p : undefined;
}
