/**
 * Preemption helpers: pod importance, PodDisruptionBudget accounting of victims, and
 * the choice among candidate nodes (fewest PDB violations, lowest highest-victim
 * priority, lowest priority sum, fewest victims, latest earliest start time).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/preemption/preemption.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { labelSelectorAsSelector } from '../../../apimachinery/labels.js';
import type { PodInfo } from '../../framework/types.js';

/** A node where preemption makes room, with the pods to evict (highest priority first). */
export interface Candidate {
  nodeName: string;
  victims: Pod[];
  numPDBViolations: number;
}

/** ms since epoch of status.startTime; `now` when unset (upstream GetPodStartTime). */
export function podStartTime(pod: Pod, now: number): number {
  const s = pod.status?.startTime;
  return s ? Date.parse(s) : now;
}

/** Higher priority first; equal priorities: the earlier started (upstream MoreImportantPod). */
export function moreImportantPod(a: Pod, b: Pod, now: number): boolean {
  const p1 = a.spec?.priority ?? 0;
  const p2 = b.spec?.priority ?? 0;
  if (p1 !== p2) return p1 > p2;
  return podStartTime(a, now) < podStartTime(b, now);
}

/**
 * Splits victims into those whose eviction would exceed a matching PDB's
 * disruptionsAllowed and the others (order kept). Pods already in a PDB's
 * disruptedPods do not count.
 */
export function filterPodsWithPDBViolation(pods: PodInfo[], pdbs: PodDisruptionBudget[]): [PodInfo[], PodInfo[]] {
  const allowed = pdbs.map((p) => p.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((p) => {
    try {
      return labelSelectorAsSelector(p.spec?.selector);
    } catch {
      return null;
    }
  });
  const violating: PodInfo[] = [];
  const ok: PodInfo[] = [];
  for (const pi of pods) {
    const pod = pi.pod;
    const labels = pod.metadata?.labels;
    let violated = false;
    if (labels && Object.keys(labels).length) {
      for (let i = 0; i < pdbs.length; i++) {
        const pdb = pdbs[i]!;
        if ((pdb.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) continue;
        const sel = selectors[i];
        if (!sel || sel.empty() || !sel.matches(labels)) continue;
        if (pdb.status?.disruptedPods && Object.hasOwn(pdb.status.disruptedPods, pod.metadata?.name ?? '')) continue;
        allowed[i]!--;
        if (allowed[i]! < 0) violated = true;
      }
    }
    (violated ? violating : ok).push(pi);
  }
  return [violating, ok];
}

const INT32_MAX = 2147483647;

/** Earliest start time among the victims of the highest priority (upstream GetEarliestPodStartTime). */
function earliestStartTime(victims: Pod[], now: number): number {
  if (victims.length === 0) return now;
  let best = victims[0]!;
  let bestPrio = best.spec?.priority ?? 0;
  let bestT = podStartTime(best, now);
  for (const v of victims) {
    const p = v.spec?.priority ?? 0;
    const t = podStartTime(v, now);
    if (p === bestPrio && t < bestT) {
      bestT = t;
      best = v;
    } else if (p > bestPrio) {
      bestPrio = p;
      bestT = t;
      best = v;
    }
  }
  return bestT;
}

/** Keeps the candidates with the best (highest) score. */
function keepBest(cs: Candidate[], score: (c: Candidate) => number): Candidate[] {
  let best = -Infinity;
  let out: Candidate[] = [];
  for (const c of cs) {
    const s = score(c);
    if (s > best) {
      best = s;
      out = [c];
    } else if (s === best) out.push(c);
  }
  return out;
}

/** Upstream pickOneNodeForPreemption with the default score functions. */
export function pickOneNodeForPreemption(candidates: Candidate[], now: number): Candidate | undefined {
  if (candidates.length === 0) return undefined;
  const steps: ((c: Candidate) => number)[] = [
    (c) => -c.numPDBViolations,
    (c) => -(c.victims.length ? (c.victims[0]!.spec?.priority ?? 0) : -INT32_MAX - 1),
    (c) => {
      let sum = 0;
      for (const v of c.victims) sum += (v.spec?.priority ?? 0) + INT32_MAX + 1;
      return -sum;
    },
    (c) => -c.victims.length,
    (c) => earliestStartTime(c.victims, now),
  ];
  let cs = candidates;
  for (const f of steps) {
    cs = keepBest(cs, f);
    if (cs.length === 1) return cs[0];
  }
  return cs[0];
}
