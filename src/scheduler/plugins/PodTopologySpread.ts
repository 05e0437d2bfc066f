/**
 * PodTopologySpread: Filter enforces DoNotSchedule constraints (matching pods in the
 * node's domain + self − global minimum ≤ maxSkew, with minDomains and the node
 * inclusion policies); Score prefers domains with fewer matching pods for
 * ScheduleAnyway constraints. Pods without constraints get the cluster default
 * constraints (system defaults: hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway)
 * with a selector built from the Services and controller owning the pod.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/podtopologyspread/
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Node, Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type {
  EnqueueExtensions,
  FilterPlugin,
  Handle,
  PreFilterExtensions,
  PreFilterPlugin,
  PreScorePlugin,
  ScoreExtensions,
  ScorePlugin,
} from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { asStatus, Code, Status } from '../framework/status.js';
import { ActionType, MAX_NODE_SCORE, QueueingHint, type ClusterEventWithHint, type PodInfo, type PreFilterResult } from '../framework/types.js';
import { RequiredNodeAffinity } from './helper/node-affinity.js';
import {
  countPodsMatchSelector,
  CriticalPaths,
  defaultSelector,
  filterConstraints,
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  SYSTEM_DEFAULT_CONSTRAINTS,
  type SpreadConstraint,
} from './helper/spread.js';

export const Name = 'PodTopologySpread';

const preFilterStateKey = 'PreFilter' + Name;
const preScoreStateKey = 'PreScore' + Name;
const HOSTNAME = 'kubernetes.io/hostname';

/** Filter reasons, as upstream. */
export const ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
export const ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + ' (missing required label)';

/** PodTopologySpreadArgs (kubescheduler.config.k8s.io/v1). */
export interface PodTopologySpreadArgs {
  defaultConstraints?: TopologySpreadConstraint[];
  /** System (default): the built-in constraints; List: `defaultConstraints` */
  defaultingType?: 'System' | 'List';
}

class PreFilterState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    readonly criticalPaths: CriticalPaths[],
    readonly tpValueToMatchNum: Map<string, number>[],
  ) {}

  clone(): StateData {
    return new PreFilterState(
      this.constraints,
      this.criticalPaths.map((p) => p.clone()),
      this.tpValueToMatchNum.map((m) => new Map(m)),
    );
  }

  /** The global minimum, 0 when fewer than minDomains domains are eligible. */
  minMatchNum(i: number, minDomains: number): number {
    return this.tpValueToMatchNum[i]!.size < minDomains ? 0 : this.criticalPaths[i]!.n0;
  }
}

class PreScoreState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    readonly ignoredNodes: Set<string>,
    /** per constraint: topology value → matching pods (hostname constraints: computed in Score) */
    readonly counts: Map<string, number>[],
    readonly weights: number[],
  ) {}
  clone(): StateData {
    return this;
  }
}

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, PreFilterExtensions, EnqueueExtensions {
  readonly name = Name;

  constructor(
    private readonly handle: Handle,
    private readonly defaultConstraints: TopologySpreadConstraint[],
    private readonly systemDefaulted: boolean,
  ) {}

  /** Constraints for `action`: the pod's own, or the defaults with the owners' selector. @throws on invalid selectors */
  private getConstraints(pod: Pod, action: string): SpreadConstraint[] {
    const own = pod.spec?.topologySpreadConstraints;
    if (own && own.length) return filterConstraints(own, pod.metadata?.labels, action);
    if (this.defaultConstraints.length === 0) return [];
    const cs = filterConstraints(this.defaultConstraints, pod.metadata?.labels, action);
    if (cs.length === 0) return cs;
    const sel = defaultSelector(pod, this.handle.listers);
    if (sel.empty()) return [];
    for (const c of cs) c.selector = sel;
    return cs;
  }

  preFilter(state: CycleState, pod: Pod, nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    let cs: SpreadConstraint[];
    try {
      cs = this.getConstraints(pod, 'DoNotSchedule');
    } catch (e) {
      return [null, asStatus(new Error(`get constraints from pod: ${(e as Error).message}`))];
    }
    if (cs.length === 0) return [null, new Status(Code.Skip)];
    const required = new RequiredNodeAffinity(pod);
    const ns = pod.metadata?.namespace ?? '';
    const maps = cs.map(() => new Map<string, number>());
    for (const ni of nodes) {
      const node = ni.node;
      if (!node || !nodeLabelsMatchSpreadConstraints(ni.labels, cs)) continue;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (!matchNodeInclusionPolicies(c, pod, node, required)) continue;
        const v = ni.labels[c.topologyKey]!;
        const m = maps[i]!;
        m.set(v, (m.get(v) ?? 0) + countPodsMatchSelector(ni.pods, c.selector, ns));
      }
    }
    const paths = cs.map((_, i) => {
      const p = new CriticalPaths();
      for (const [v, n] of maps[i]!) p.update(v, n);
      return p;
    });
    state.write(preFilterStateKey, new PreFilterState(cs, paths, maps));
    return [null, null];
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  private updateWithPod(state: CycleState, updated: Pod, preemptor: Pod, node: Node | null, delta: number): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`reading "${preFilterStateKey}" from cycleState: not found`));
    if (!node || (updated.metadata?.namespace ?? '') !== (preemptor.metadata?.namespace ?? '')) return null;
    const labels = node.metadata?.labels ?? {};
    if (!nodeLabelsMatchSpreadConstraints(labels, s.constraints)) return null;
    const required = new RequiredNodeAffinity(preemptor);
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i]!;
      if (!c.selector.matches(updated.metadata?.labels)) continue;
      if (!matchNodeInclusionPolicies(c, preemptor, node, required)) continue;
      const v = labels[c.topologyKey]!;
      const m = s.tpValueToMatchNum[i]!;
      const n = (m.get(v) ?? 0) + delta;
      m.set(v, n);
      s.criticalPaths[i]!.update(v, n);
    }
    return null;
  }

  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status | null {
    return this.updateWithPod(state, podInfoToAdd.pod, podToSchedule, nodeInfo.node, 1);
  }

  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status | null {
    return this.updateWithPod(state, podInfoToRemove.pod, podToSchedule, nodeInfo.node, -1);
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`reading "${preFilterStateKey}" from cycleState: not found`));
    const labels = nodeInfo.labels;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i]!;
      const v = labels[c.topologyKey];
      if (v === undefined) return new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNodeLabelNotMatch]);
      const min = s.minMatchNum(i, c.minDomains);
      const self = c.selector.matches(pod.metadata?.labels) ? 1 : 0;
      const matchNum = s.tpValueToMatchNum[i]!.get(v) ?? 0;
      if (matchNum + self - min > c.maxSkew) return new Status(Code.Unschedulable, [ErrReasonConstraintsNotMatch]);
    }
    return null;
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, n: number, out: (Status | null)[]): void {
    for (let i = 0; i < n; i++) out[i] = this.filter(state, pod, nodes[i]!);
  }

  preScore(state: CycleState, pod: Pod, filtered: NodeInfo[]): Status | null {
    const all = this.handle.snapshotSharedLister().list();
    if (all.length === 0) return new Status(Code.Skip);
    let cs: SpreadConstraint[];
    try {
      cs = this.getConstraints(pod, 'ScheduleAnyway');
    } catch (e) {
      return asStatus(new Error(`calculating preScoreState: ${(e as Error).message}`));
    }
    if (cs.length === 0) return new Status(Code.Skip);
    const requireAll = (pod.spec?.topologySpreadConstraints?.length ?? 0) > 0 || !this.systemDefaulted;
    const ignored = new Set<string>();
    const counts = cs.map(() => new Map<string, number>());
    const topoSize = cs.map(() => 0);
    for (const ni of filtered) {
      if (requireAll && !nodeLabelsMatchSpreadConstraints(ni.labels, cs)) {
        ignored.add(ni.name);
        continue;
      }
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c.topologyKey === HOSTNAME) continue;
        const v = ni.labels[c.topologyKey];
        if (v === undefined) continue;
        if (!counts[i]!.has(v)) {
          counts[i]!.set(v, 0);
          topoSize[i]!++;
        }
      }
    }
    const weights = cs.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? filtered.length - ignored.size : topoSize[i]!) + 2));
    const required = new RequiredNodeAffinity(pod);
    const ns = pod.metadata?.namespace ?? '';
    const needPods = cs.some((c) => c.topologyKey !== HOSTNAME);
    if (needPods) {
      for (const ni of all) {
        const node = ni.node;
        if (!node) continue;
        if (requireAll && !nodeLabelsMatchSpreadConstraints(ni.labels, cs)) continue;
        for (let i = 0; i < cs.length; i++) {
          const c = cs[i]!;
          if (c.topologyKey === HOSTNAME) continue;
          if (!matchNodeInclusionPolicies(c, pod, node, required)) continue;
          const v = ni.labels[c.topologyKey];
          if (v === undefined) continue;
          const m = counts[i]!;
          const cur = m.get(v);
          if (cur === undefined) continue;
          m.set(v, cur + countPodsMatchSelector(ni.pods, c.selector, ns));
        }
      }
    }
    state.write(preScoreStateKey, new PreScoreState(cs, ignored, counts, weights));
    return null;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const s = state.get<PreScoreState>(preScoreStateKey);
    if (!s) return asStatus(new Error(`reading "${preScoreStateKey}" from cycleState: not found`));
    if (s.ignoredNodes.has(nodeInfo.name)) return 0;
    let score = 0;
    const labels = nodeInfo.labels;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i]!;
      const v = labels[c.topologyKey];
      if (v === undefined) continue;
      const cnt = c.topologyKey === HOSTNAME ? countPodsMatchSelector(nodeInfo.pods, c.selector, pod.metadata?.namespace ?? '') : (s.counts[i]!.get(v) ?? 0);
      score += cnt * s.weights[i]! + (c.maxSkew - 1);
    }
    return Math.round(score);
  }

  scoreAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, scores: number[]): Status | null {
    for (let i = 0; i < nodes.length; i++) {
      const r = this.score(state, pod, nodes[i]!);
      if (typeof r !== 'number') return r;
      scores[i] = r;
    }
    return null;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  /** Fewer matching pods score higher: 100·(max + min − s)/max; ignored nodes get 0. */
  normalizeScore(state: CycleState, _pod: Pod, scores: number[], nodes: NodeInfo[]): Status | null {
    const s = state.get<PreScoreState>(preScoreStateKey);
    if (!s) return asStatus(new Error(`reading "${preScoreStateKey}" from cycleState: not found`));
    let min = Number.MAX_SAFE_INTEGER;
    let max = 0;
    const ignored = s.ignoredNodes;
    for (let i = 0; i < scores.length; i++) {
      if (ignored.size && ignored.has(nodes[i]!.name)) continue;
      const v = scores[i]!;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    for (let i = 0; i < scores.length; i++) {
      if (ignored.size && ignored.has(nodes[i]!.name)) scores[i] = 0;
      else if (max === 0) scores[i] = MAX_NODE_SCORE;
      else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - scores[i]!)) / max);
    }
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.All, label: 'PodChange' },
        queueingHintFn: (pod, oldObj, newObj) => this.podChangeHint(pod, oldObj as Pod | undefined, newObj as Pod | undefined),
      },
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeChange' },
        queueingHintFn: (pod, oldObj, newObj) => this.nodeChangeHint(pod, oldObj as Node | undefined, newObj as Node | undefined),
      },
    ];
  }

  /** A pod in the same namespace matching a constraint's selector (before or after) may change the counts. */
  private podChangeHint(pod: Pod, oldPod: Pod | undefined, newPod: Pod | undefined): QueueingHint {
    const p = newPod ?? oldPod;
    if (!p || (p.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return QueueingHint.QueueSkip;
    let cs: SpreadConstraint[];
    try {
      cs = this.getConstraints(pod, 'DoNotSchedule');
    } catch {
      return QueueingHint.Queue;
    }
    for (const c of cs) {
      if (c.selector.matches(newPod?.metadata?.labels) || c.selector.matches(oldPod?.metadata?.labels)) return QueueingHint.Queue;
    }
    return QueueingHint.QueueSkip;
  }

  /** A node that has (or had) every constraint key may open a domain. */
  private nodeChangeHint(pod: Pod, oldNode: Node | undefined, newNode: Node | undefined): QueueingHint {
    let cs: SpreadConstraint[];
    try {
      cs = this.getConstraints(pod, 'DoNotSchedule');
    } catch {
      return QueueingHint.Queue;
    }
    const has = (n: Node | undefined) => !!n && nodeLabelsMatchSpreadConstraints(n.metadata?.labels ?? {}, cs);
    if (!oldNode || !newNode) return has(newNode ?? oldNode) ? QueueingHint.Queue : QueueingHint.QueueSkip;
    if (!has(oldNode) && !has(newNode)) return QueueingHint.QueueSkip;
    const changed = cs.some((c) => oldNode.metadata?.labels?.[c.topologyKey] !== newNode.metadata?.labels?.[c.topologyKey]);
    const taintsChanged = JSON.stringify(oldNode.spec?.taints ?? []) !== JSON.stringify(newNode.spec?.taints ?? []);
    return changed || taintsChanged ? QueueingHint.Queue : QueueingHint.QueueSkip;
  }
}

/** Builds the plugin. Throws upstream's validation errors for bad default constraints. */
export function New(args: unknown, handle: Handle): PodTopologySpread {
  const a = (args ?? {}) as PodTopologySpreadArgs;
  const type = a.defaultingType ?? 'System';
  if (type !== 'System' && type !== 'List') throw new Error(`defaultingType: Unsupported value: "${String(type)}": supported values: "List", "System"`);
  if (type === 'System' && a.defaultConstraints?.length) throw new Error('defaultConstraints: Invalid value: "null": when .defaultingType is "System"');
  for (const [i, c] of (a.defaultConstraints ?? []).entries()) {
    if (c.labelSelector) throw new Error(`defaultConstraints[${i}].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`);
    if (!(c.maxSkew > 0)) throw new Error(`defaultConstraints[${i}].maxSkew: Invalid value: ${c.maxSkew}: must be greater than zero`);
  }
  if (type === 'System') return new PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS, true);
  return new PodTopologySpread(handle, a.defaultConstraints ?? [], false);
}
