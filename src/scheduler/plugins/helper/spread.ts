/**
 * Helpers for PodTopologySpread: parsed constraints (selector with matchLabelKeys
 * merged in, minDomains, node inclusion policies), the default selector built from the
 * Services and controller that own a pod, and the 2-entry critical paths of the
 * minimum matching domain.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/podtopologyspread/common.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/helper/spread.go
 */
import type { Node, Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { labelSelectorAsSelector, selectorFromSet, type Labels, type Selector } from '../../../apimachinery/labels.js';
import type { ClusterListers } from '../../framework/listers.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/types.js';
import type { RequiredNodeAffinity } from './node-affinity.js';
import { doNotScheduleTaintsFilter, findMatchingUntoleratedTaint } from './taints.js';

/** A parsed TopologySpreadConstraint. */
export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  minDomains: number;
  /** Honor (default): only nodes matching the pod's node affinity count */
  nodeAffinityPolicy: 'Honor' | 'Ignore';
  /** Ignore (default): tainted nodes count too */
  nodeTaintsPolicy: 'Honor' | 'Ignore';
}

/** A selector matching when both match (labels.Selector.Add of upstream). */
export function andSelectors(a: Selector, b: Selector): Selector {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const reqs = [...(a.requirements ?? []), ...(b.requirements ?? [])];
  return {
    matches: (l) => a.matches(l) && b.matches(l),
    empty: () => false,
    requirements: a.requirements && b.requirements ? reqs : undefined,
    toString: () => [a.toString(), b.toString()].filter(Boolean).join(','),
    requiresExactMatch: (k) => a.requiresExactMatch(k) ?? b.requiresExactMatch(k),
  };
}

/**
 * The pod's constraints with `whenUnsatisfiable === action`, parsed.
 *
 * @throws StatusError on an invalid label selector
 */
export function filterConstraints(constraints: TopologySpreadConstraint[], podLabels: Labels | undefined, action: string): SpreadConstraint[] {
  const out: SpreadConstraint[] = [];
  for (const c of constraints) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector = labelSelectorAsSelector(c.labelSelector);
    if (c.matchLabelKeys?.length && podLabels) {
      const ml: Record<string, string> = {};
      let n = 0;
      for (const k of c.matchLabelKeys) {
        const v = podLabels[k];
        if (v !== undefined) {
          ml[k] = v;
          n++;
        }
      }
      if (n) selector = andSelectors(selectorFromSet(ml), selector);
    }
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector,
      minDomains: c.minDomains ?? 1,
      nodeAffinityPolicy: (c.nodeAffinityPolicy as 'Honor' | 'Ignore' | undefined) ?? 'Honor',
      nodeTaintsPolicy: (c.nodeTaintsPolicy as 'Honor' | 'Ignore' | undefined) ?? 'Ignore',
    });
  }
  return out;
}

/** Whether the node counts for the constraint under its inclusion policies. */
export function matchNodeInclusionPolicies(c: SpreadConstraint, pod: Pod, node: Node, required: RequiredNodeAffinity): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !required.match(node)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && findMatchingUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations, doNotScheduleTaintsFilter)) return false;
  return true;
}

/** Whether the node has every constraint's topology key. */
export function nodeLabelsMatchSpreadConstraints(labels: Labels, cs: SpreadConstraint[]): boolean {
  for (const c of cs) if (labels[c.topologyKey] === undefined) return false;
  return true;
}

/** A string identifying what a selector matches (Nothing and Everything differ). */
export function selectorKey(s: Selector): string {
  return s.requirements === undefined ? '\x00nothing' : s.toString();
}

/** The memo key of {@link countOnNode} for a selector key (see selectorKey) in a namespace; build it once per cycle. */
export function countKey(ns: string, key: string): string {
  return `pts\x00${ns}\x00${key}`;
}

/** {@link countPodsMatchSelector} on a node, memoized per NodeInfo version under `memoKey` (see countKey). */
export function countOnNode(ni: NodeInfo, selector: Selector, ns: string, memoKey: string): number {
  if (ni.pods.length === 0) return 0;
  let n = ni.memoGet<number>(memoKey);
  if (n === undefined) {
    n = countPodsMatchSelector(ni.pods, selector, ns);
    ni.memoSet(memoKey, n);
  }
  return n;
}

/** Pods in `ns` (not terminating) whose labels the selector matches. */
export function countPodsMatchSelector(pods: PodInfo[], selector: Selector, ns: string): number {
  let n = 0;
  for (const pi of pods) {
    const m = pi.pod.metadata;
    if (m?.deletionTimestamp || (m?.namespace ?? '') !== ns) continue;
    if (selector.matches(m?.labels)) n++;
  }
  return n;
}

/**
 * The selector of the Services selecting the pod and of its controller
 * (ReplicationController, ReplicaSet, StatefulSet), upstream helper.DefaultSelector.
 */
export function defaultSelector(pod: Pod, listers: ClusterListers): Selector {
  const ns = pod.metadata?.namespace ?? '';
  const labels = pod.metadata?.labels ?? {};
  const set: Record<string, string> = {};
  for (const svc of listers.services(ns)) {
    const sel = svc.spec?.selector;
    if (!sel) continue;
    if (!selectorFromSet(sel).matches(labels)) continue;
    Object.assign(set, sel);
  }
  let selector = selectorFromSet(set);
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller);
  if (!owner) return selector;
  const gv = owner.apiVersion;
  try {
    if (gv === 'v1' && owner.kind === 'ReplicationController') {
      const rc = listers.replicationController(ns, owner.name);
      if (rc?.spec?.selector) selector = selectorFromSet({ ...set, ...rc.spec.selector });
    } else if (gv === 'apps/v1' && owner.kind === 'ReplicaSet') {
      const rs = listers.replicaSet(ns, owner.name);
      if (rs) selector = andSelectors(selector, labelSelectorAsSelector(rs.spec?.selector));
    } else if (gv === 'apps/v1' && owner.kind === 'StatefulSet') {
      const ss = listers.statefulSet(ns, owner.name);
      if (ss) selector = andSelectors(selector, labelSelectorAsSelector(ss.spec?.selector));
    }
  } catch {
    // an invalid controller selector does not contribute
  }
  return selector;
}

/** upstream's systemDefaultConstraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway). */
export const SYSTEM_DEFAULT_CONSTRAINTS: TopologySpreadConstraint[] = [
  { topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

/** Two domains with the fewest matching pods; [0] always holds the minimum. */
export class CriticalPaths {
  v0 = '';
  n0 = 2147483647;
  v1 = '';
  n1 = 2147483647;

  update(tpVal: string, num: number): void {
    if (tpVal === this.v0 || tpVal === this.v1) {
      if (tpVal === this.v0) this.n0 = num;
      else this.n1 = num;
      if (this.n0 > this.n1) {
        [this.v0, this.v1] = [this.v1, this.v0];
        [this.n0, this.n1] = [this.n1, this.n0];
      }
    } else if (num < this.n0) {
      this.v1 = this.v0;
      this.n1 = this.n0;
      this.v0 = tpVal;
      this.n0 = num;
    } else if (num < this.n1) {
      this.v1 = tpVal;
      this.n1 = num;
    }
  }

  clone(): CriticalPaths {
    const c = new CriticalPaths();
    c.v0 = this.v0;
    c.n0 = this.n0;
    c.v1 = this.v1;
    c.n1 = this.n1;
    return c;
  }
}
