/**
 * Pod phase and condition helpers (upstream pkg/api/v1/pod/util.go and
 * k8s.io/component-helpers). Times are RFC 3339 strings with second precision, as
 * metav1.Time serialises; clocks are injected.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/api/v1/pod/util.go
 */
import type { Pod, PodCondition, PodStatus } from '../pod/types.js';

/** metav1.Time serialisation: RFC 3339, UTC, whole seconds. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Index and condition of `type` in `status.conditions`, or [-1, undefined] (upstream GetPodCondition). */
export function getPodCondition(status: PodStatus | undefined, type: string): [number, PodCondition | undefined] {
  const list = status?.conditions;
  if (!list) return [-1, undefined];
  for (let i = 0; i < list.length; i++) if (list[i]!.type === type) return [i, list[i]];
  return [-1, undefined];
}

/**
 * Add or update a condition in place (upstream v1 UpdatePodCondition): lastTransitionTime
 * becomes `now` unless the status is unchanged, in which case the old one is kept.
 * Returns true if anything changed.
 *
 * @param now injectable clock (default: current time)
 */
export function updatePodCondition(status: PodStatus, condition: PodCondition, now: Date = new Date()): boolean {
  const c: PodCondition = { ...condition, lastTransitionTime: formatTime(now) };
  const [idx, old] = getPodCondition(status, c.type);
  if (!old) {
    (status.conditions ??= []).push(c);
    return true;
  }
  if (c.status === old.status) c.lastTransitionTime = old.lastTransitionTime;
  const equal =
    c.status === old.status &&
    (c.reason ?? '') === (old.reason ?? '') &&
    (c.message ?? '') === (old.message ?? '') &&
    (c.lastProbeTime ?? null) === (old.lastProbeTime ?? null) &&
    (c.lastTransitionTime ?? null) === (old.lastTransitionTime ?? null);
  status.conditions![idx] = c;
  return !equal;
}

/** Ready condition is True (upstream IsPodReadyConditionTrue). */
function isPodReadyConditionTrue(status: PodStatus | undefined): boolean {
  return getPodCondition(status, 'Ready')[1]?.status === 'True';
}

/** The pod is Ready (upstream IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return isPodReadyConditionTrue(pod.status);
}

/** Initialized condition is True. */
export function isPodInitializedConditionTrue(status: PodStatus | undefined): boolean {
  return getPodCondition(status, 'Initialized')[1]?.status === 'True';
}

/** Succeeded or Failed (upstream IsPodPhaseTerminal). */
export function isPodPhaseTerminal(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Ready for at least `minReadySeconds` (upstream IsPodAvailable).
 *
 * @param minReadySeconds seconds
 * @param now injectable clock
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  if (!isPodReady(pod)) return false;
  const c = getPodCondition(pod.status, 'Ready')[1];
  if (minReadySeconds === 0) return true;
  if (!c?.lastTransitionTime) return false;
  const t = Date.parse(c.lastTransitionTime);
  return !Number.isNaN(t) && t + minReadySeconds * 1000 < now.getTime();
}
