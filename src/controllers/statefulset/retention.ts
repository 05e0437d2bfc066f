/**
 * PersistentVolumeClaim retention (StatefulSetAutoDeletePVC, beta and on in 1.32): owner
 * references on a pod's claims so the garbage collector deletes them as
 * `spec.persistentVolumeClaimRetentionPolicy` says — whenDeleted=Delete: the claim is
 * owned by the set; whenScaled=Delete: a claim of a pod beyond the ordinal range is owned
 * by that pod (and no longer by the set). Retain/Retain (the default) removes both.
 * A claim still owned by an earlier pod of the same name is stale: the pod waits until
 * the garbage collector has removed it.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/statefulset/stateful_set_utils.go (updateClaimOwnerRefForSetAndPod, isStale)
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Pod } from '../util/pods.js';
import { type Claim, podInOrdinalRange, type StatefulSet } from './pods.js';

function hasRef(claim: Claim, uid: string | undefined): boolean {
  return !!uid && !!claim.metadata?.ownerReferences?.some((r) => r.uid === uid);
}

function setRef(claim: Claim, ref: OwnerReference): boolean {
  if (hasRef(claim, ref.uid)) return false;
  claim.metadata = { ...claim.metadata, ownerReferences: [...(claim.metadata?.ownerReferences ?? []), ref] };
  return true;
}

function removeRef(claim: Claim, uid: string | undefined): boolean {
  if (!hasRef(claim, uid)) return false;
  const refs = claim.metadata!.ownerReferences!.filter((r) => r.uid !== uid);
  claim.metadata = { ...claim.metadata, ownerReferences: refs.length ? refs : undefined };
  return true;
}

/**
 * Sets or removes the set's and the pod's owner references on `claim` as the retention
 * policy requires (upstream updateClaimOwnerRefForSetAndPod). Mutates `claim`.
 * @returns whether the claim changed
 */
export function updateClaimOwnerRefs(claim: Claim, set: StatefulSet, pod: Pod): boolean {
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy ?? {};
  const whenDeleted = policy.whenDeleted ?? 'Retain';
  const whenScaled = policy.whenScaled ?? 'Retain';
  const setOwner: OwnerReference = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata?.name ?? '', uid: set.metadata?.uid ?? '' };
  const podOwner: OwnerReference = { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' };
  const scaledDown = !podInOrdinalRange(pod, set);
  let changed = false;
  if (whenScaled === 'Delete' && scaledDown) {
    changed = removeRef(claim, setOwner.uid) || changed;
    if (podOwner.uid) changed = setRef(claim, podOwner) || changed;
    return changed;
  }
  changed = (whenDeleted === 'Delete' ? setRef(claim, setOwner) : removeRef(claim, setOwner.uid)) || changed;
  changed = removeRef(claim, podOwner.uid) || changed;
  return changed;
}

/**
 * A claim owned by a pod of this name other than `pod` (an earlier incarnation whose
 * claim the garbage collector has yet to delete) — upstream isStale.
 */
export function claimIsStale(claim: Claim, pod: Pod): boolean {
  return !!claim.metadata?.ownerReferences?.some((r) => r.kind === 'Pod' && r.apiVersion === 'v1' && r.name === pod.metadata?.name && r.uid !== pod.metadata?.uid);
}
