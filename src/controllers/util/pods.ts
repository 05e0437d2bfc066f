/**
 * Pod helpers the workload controllers share: activity and readiness tests, pods from
 * templates (upstream GetPodFromTemplate), and the ranking that decides which pods a
 * ReplicaSet deletes first (upstream ActivePodsWithRanks with LogarithmicScaleDown).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/controller_utils.go
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Pod as KPod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { nameIsDNSSubdomain } from '../../apimachinery/validation.js';

/** A Pod as the controllers handle it. */
export type Pod = KPod & KObject;

/** Not terminal and not being deleted (upstream IsPodActive). */
export function isPodActive(p: Pod): boolean {
  const phase = p.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !p.metadata?.deletionTimestamp;
}

/** Ready condition True (upstream podutil.IsPodReady). */
export function isPodReady(p: Pod): boolean {
  return !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** When the pod became ready (ms), or undefined. */
function podReadyTime(p: Pod): number | undefined {
  const c = p.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
  return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : undefined;
}

/** Ready for at least `minReadySeconds` at `now` (upstream podutil.IsPodAvailable). */
export function isPodAvailable(p: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(p)) return false;
  if (minReadySeconds <= 0) return true;
  const t = podReadyTime(p);
  return t !== undefined && t + minReadySeconds * 1000 <= now;
}

/** When a pod that is ready becomes available (ms), for requeueing; undefined when not ready. */
export function podAvailableAt(p: Pod, minReadySeconds: number): number | undefined {
  const t = podReadyTime(p);
  return t === undefined ? undefined : t + minReadySeconds * 1000;
}

/** A pod template as workloads embed it. */
interface PodTemplateLike {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec?: unknown;
}

/** `<name>-` when valid as a generateName prefix, else the name (upstream getPodsPrefix). */
function podsPrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  return nameIsDNSSubdomain(prefix, true).length ? controllerName : prefix;
}

/** A new pod from a template (upstream GetPodFromTemplate): labels, annotations, finalizers, generateName, owner, spec. */
export function podFromTemplate(template: PodTemplateLike | undefined, parentName: string, controllerRef?: OwnerReference): Pod {
  const tm = template?.metadata ?? {};
  const metadata: NonNullable<Pod['metadata']> = { generateName: podsPrefix(parentName) };
  if (tm.labels) metadata.labels = { ...tm.labels };
  if (tm.annotations) metadata.annotations = { ...tm.annotations };
  if (tm.finalizers?.length) metadata.finalizers = [...tm.finalizers];
  if (controllerRef) metadata.ownerReferences = [{ ...controllerRef }];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(template?.spec ?? { containers: [] }) as Pod['spec'] };
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(p: Pod): number {
  const v = p.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost'];
  const n = v === undefined ? 0 : Number(v);
  return Number.isInteger(n) ? n : 0;
}

function maxRestarts(p: Pod): number {
  let m = 0;
  for (const cs of p.status?.containerStatuses ?? []) m = Math.max(m, cs.restartCount ?? 0);
  for (const cs of p.status?.initContainerStatuses ?? []) m = Math.max(m, cs.restartCount ?? 0);
  return m;
}

/** floor(log2(now − t)) in ns, −1 when not in the past (upstream logarithmicRankDiff halves). */
function logRank(t: number, now: number): number {
  const d = (now - t) * 1e6;
  return d > 0 ? Math.floor(Math.log2(d)) : -1;
}

/** `a` after `b`, a missing time counting as the latest (upstream afterOrZero). */
function afterOrZero(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === undefined;
  return a > b;
}

/**
 * Sorts pods so the ones to delete first come first (upstream ActivePodsWithRanks.Less):
 * unassigned, pending < unknown < running, not ready, lower deletion cost, more
 * co-located pods (`rank`), ready for less time, more restarts, newer.
 * @param rank per-pod count of related active pods on the same node
 */
export function sortPodsForDeletion(pods: Pod[], rank: (p: Pod) => number, now: number): Pod[] {
  const ranks = new Map<Pod, number>();
  for (const p of pods) ranks.set(p, rank(p));
  const less = (a: Pod, b: Pod): boolean => {
    const na = a.spec?.nodeName ?? '';
    const nb = b.spec?.nodeName ?? '';
    if (na !== nb && (na === '' || nb === '')) return na === '';
    const pa = PHASE_ORDINAL[a.status?.phase ?? ''] ?? 0;
    const pb = PHASE_ORDINAL[b.status?.phase ?? ''] ?? 0;
    if (pa !== pb) return pa < pb;
    const ra = isPodReady(a);
    const rb = isPodReady(b);
    if (ra !== rb) return !ra;
    const ca = deletionCost(a);
    const cb = deletionCost(b);
    if (ca !== cb) return ca < cb;
    const ka = ranks.get(a)!;
    const kb = ranks.get(b)!;
    if (ka !== kb) return ka > kb;
    if (ra && rb) {
      const ta = podReadyTime(a);
      const tb = podReadyTime(b);
      if (ta !== tb) {
        if (ta === undefined || tb === undefined) return afterOrZero(ta, tb);
        const diff = logRank(ta, now) - logRank(tb, now);
        if (diff === 0) return (a.metadata?.uid ?? '') < (b.metadata?.uid ?? '');
        return diff < 0;
      }
    }
    const xa = maxRestarts(a);
    const xb = maxRestarts(b);
    if (xa !== xb) return xa > xb;
    const ct = (p: Pod): number | undefined => (p.metadata?.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : undefined);
    const cta = ct(a);
    const ctb = ct(b);
    if (cta !== ctb) {
      if (cta === undefined || ctb === undefined) return afterOrZero(cta, ctb);
      const diff = logRank(cta, now) - logRank(ctb, now);
      if (diff === 0) return (a.metadata?.uid ?? '') < (b.metadata?.uid ?? '');
      return diff < 0;
    }
    return false;
  };
  return [...pods].sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
}

/** Pods of the given list sorted for deletion, ranked by active related pods on the same node (upstream getPodsToDelete). */
export function podsToDelete(filtered: Pod[], related: Pod[], diff: number, now: number): Pod[] {
  if (diff >= filtered.length) return filtered.slice(0, diff);
  const onNode = new Map<string, number>();
  for (const p of related) if (isPodActive(p)) onNode.set(p.spec?.nodeName ?? '', (onNode.get(p.spec?.nodeName ?? '') ?? 0) + 1);
  return sortPodsForDeletion(filtered, (p) => onNode.get(p.spec?.nodeName ?? '') ?? 0, now).slice(0, diff);
}
