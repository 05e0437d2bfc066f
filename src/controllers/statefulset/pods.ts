/**
 * StatefulSet pod identity: names `<set>-<ordinal>`, the labels
 * `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`, hostname and
 * subdomain (spec.serviceName), the claims `<claim>-<set>-<ordinal>` replacing the
 * template volumes of the same name, the pod's revision label, and the pod state tests
 * the update algorithm uses.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/statefulset/stateful_set_utils.go
 */
import type { StatefulSet as KStatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Volume } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { newControllerRef } from '../util/controller-ref.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../util/history.js';
import { isPodAvailable, isPodReady, type Pod } from '../util/pods.js';

export type StatefulSet = KStatefulSet & KObject;
export type Claim = PersistentVolumeClaim & KObject;

/** Label with the pod's own name (upstream StatefulSetPodNameLabel). */
const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** Label with the pod's ordinal (upstream PodIndexLabel, on by default since 1.28). */
const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

const ORDINAL_RE = /^(.*)-(\d+)$/;

/** `[parent, ordinal]` from a pod name, ordinal −1 when the name has none (upstream getParentNameAndOrdinal). */
function parentAndOrdinal(pod: Pod): [string, number] {
  const m = ORDINAL_RE.exec(pod.metadata?.name ?? '');
  if (!m) return ['', -1];
  const n = Number(m[2]);
  return Number.isSafeInteger(n) ? [m[1]!, n] : ['', -1];
}

/** The pod's ordinal, −1 when none. */
export function ordinalOf(pod: Pod): number {
  return parentAndOrdinal(pod)[1];
}

/** Is the pod named as a member of `set`? (upstream isMemberOf) */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return parentAndOrdinal(pod)[0] === set.metadata?.name;
}

/** spec.ordinals.start (default 0). */
export function startOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

/** One past the last ordinal of the set's range. */
export function endOrdinal(set: StatefulSet): number {
  return startOrdinal(set) + (set.spec?.replicas ?? 1);
}

/** Is the pod's ordinal in [start, start+replicas)? */
export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o < endOrdinal(set);
}

/** `<set>-<ordinal>` */
function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name}-${ordinal}`;
}

/** `<claim>-<set>-<ordinal>` (upstream getPersistentVolumeClaimName). */
function claimName(set: StatefulSet, claim: string, ordinal: number): string {
  return `${claim}-${set.metadata?.name}-${ordinal}`;
}

/** The pod's revision (its controller-revision-hash label). */
export function podRevision(pod: Pod): string {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
}

/** The PVCs the pod at `ordinal` needs, by claim name (upstream getPersistentVolumeClaims). */
export function claimsFor(set: StatefulSet, ordinal: number): Map<string, Claim> {
  const out = new Map<string, Claim>();
  const sel = set.spec?.selector?.matchLabels ?? {};
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const name = claimName(set, t.metadata?.name ?? '', ordinal);
    const c: Claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { ...structuredClone(t.metadata ?? {}), name, namespace: set.metadata?.namespace, labels: { ...(t.metadata?.labels ?? {}), ...sel } },
      spec: structuredClone(t.spec ?? {}),
    };
    out.set(t.metadata?.name ?? '', c);
  }
  return out;
}

/** Points the template volumes at the pod's claims, appending the ones the template lacks (upstream updateStorage). */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const templates = set.spec?.volumeClaimTemplates ?? [];
  if (!templates.length) return;
  const ord = ordinalOf(pod);
  const byName = new Map<string, Volume>();
  for (const t of templates) {
    const n = t.metadata?.name ?? '';
    byName.set(n, { name: n, persistentVolumeClaim: { claimName: claimName(set, n, ord) } });
  }
  const spec = pod.spec!;
  const vols: Volume[] = [];
  for (const v of spec.volumes ?? []) if (!byName.has(v.name)) vols.push(v);
  for (const v of byName.values()) vols.push(v);
  spec.volumes = vols;
}

/** Do the pod's volumes point at its claims? (upstream storageMatches) */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ord = ordinalOf(pod);
  if (ord < 0) return false;
  const vols = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const n = t.metadata?.name ?? '';
    const v = vols.get(n);
    if (v?.persistentVolumeClaim?.claimName !== claimName(set, n, ord)) return false;
  }
  return true;
}

/** Name, namespace, pod-name and pod-index labels as the ordinal requires (upstream identityMatches). */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const [parent, ord] = parentAndOrdinal(pod);
  const l = pod.metadata?.labels ?? {};
  return (
    ord >= 0 &&
    parent === set.metadata?.name &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    l[POD_NAME_LABEL] === pod.metadata?.name &&
    l[POD_INDEX_LABEL] === String(ord)
  );
}

/** Sets hostname, subdomain and the identity labels (upstream updateIdentity + initIdentity). */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ord = ordinalOf(pod);
  pod.metadata!.name = podName(set, ord);
  pod.metadata!.namespace = set.metadata?.namespace;
  pod.metadata!.labels = { ...(pod.metadata!.labels ?? {}), [POD_NAME_LABEL]: pod.metadata!.name, [POD_INDEX_LABEL]: String(ord) };
  pod.spec!.hostname = pod.metadata!.name;
  if (set.spec?.serviceName) pod.spec!.subdomain = set.spec.serviceName;
}

/**
 * The pod for `ordinal` from `set`'s template, labelled with `revision` (upstream
 * newStatefulSetPod + SetPodRevision).
 */
export function newStatefulSetPod(set: StatefulSet, ordinal: number, revision: string): Pod {
  const tm = set.spec?.template?.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(set, ordinal),
      labels: { ...(tm.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: revision },
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec: structuredClone(set.spec?.template?.spec ?? { containers: [] }),
  };
  if (tm.annotations) pod.metadata!.annotations = { ...tm.annotations };
  if (tm.finalizers?.length) pod.metadata!.finalizers = [...tm.finalizers];
  updateIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}

/** The phase is set (the API server has the pod). */
export const isCreated = (p: Pod): boolean => !!p.status?.phase;
export const isPending = (p: Pod): boolean => p.status?.phase === 'Pending';
export const isFailed = (p: Pod): boolean => p.status?.phase === 'Failed';
export const isSucceeded = (p: Pod): boolean => p.status?.phase === 'Succeeded';
export const isTerminating = (p: Pod): boolean => !!p.metadata?.deletionTimestamp;
/** Running and Ready. */
export const isRunningAndReady = (p: Pod): boolean => p.status?.phase === 'Running' && isPodReady(p);
/** Running and available for minReadySeconds at `now` (ms). */
export const isRunningAndAvailable = (p: Pod, minReadySeconds: number, now: number): boolean => p.status?.phase === 'Running' && isPodAvailable(p, minReadySeconds, now);
/** Running, ready and not terminating (upstream isHealthy). */
export const isHealthy = (p: Pod): boolean => isRunningAndReady(p) && !isTerminating(p);
