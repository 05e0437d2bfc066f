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
import type { EnqueueExtensions, FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin, PreScorePlugin, ScoreExtensions, ScorePlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import type { TopologyIndex } from '../framework/topology-index.js';
import { asStatus, Code, Status } from '../framework/status.js';
import { ActionType, MAX_NODE_SCORE, QueueingHint, type ClusterEventWithHint, type PodInfo, type PreFilterResult } from '../framework/types.js';
import { RequiredNodeAffinity } from './helper/node-affinity.js';
import {
  countKey,
  countOnNode,
  countPodsMatchSelector,
  CriticalPaths,
  defaultSelector,
  filterConstraints,
  matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints,
  selectorKey,
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

/**
 * Upstream's preFilterState: per constraint, the matching pods of every eligible domain
 * (upstream TpValueToMatchNum) — here by value id of the snapshot's TopologyIndex of
 * the constraint's key, −1 marking values that are not eligible domains — and the
 * critical paths.
 */
class PreFilterState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    readonly criticalPaths: CriticalPaths[],
    readonly index: TopologyIndex[],
    readonly sums: number[][],
    /** eligible domains per constraint */
    readonly domains: number[],
  ) {}

  clone(): StateData {
    return new PreFilterState(
      this.constraints,
      this.criticalPaths.map((p) => p.clone()),
      this.index,
      this.sums.map((s) => s.slice()),
      this.domains.slice(),
    );
  }

  /** Matching pods in domain `value` of constraint `i` (0 when not eligible). */
  count(i: number, value: string): number {
    const id = this.index[i]!.peek(value);
    const v = id < 0 ? undefined : this.sums[i]![id];
    return v === undefined || v < 0 ? 0 : v;
  }

  /** Adds `delta` matching pods to domain `value` (making it eligible), as upstream's updateWithPod. */
  add(i: number, value: string, delta: number): void {
    const id = this.index[i]!.idOf(value);
    const s = this.sums[i]!;
    while (s.length <= id) s.push(-1);
    if (s[id]! < 0) {
      s[id] = 0;
      this.domains[i]!++;
    }
    s[id]! += delta;
    this.criticalPaths[i]!.update(value, s[id]!);
  }

  /** The global minimum, 0 when fewer than minDomains domains are eligible. */
  minMatchNum(i: number, minDomains: number): number {
    return this.domains[i]! < minDomains ? 0 : this.criticalPaths[i]!.n0;
  }
}

class PreScoreState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    readonly ignoredNodes: Set<string>,
    /** per constraint: topology value → matching pods (hostname constraints: computed in Score) */
    readonly counts: number[][],
    readonly weights: number[],
    /** count memo key of each constraint */
    readonly keys: string[],
    /** the snapshot's index of each constraint's key (counts are by value id) */
    readonly index: TopologyIndex[],
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
    const keys = cs.map((c) => countKey(ns, selectorKey(c.selector)));
    // the inclusion policies only need checking when they can exclude a node
    const check = cs.map((c) => (c.nodeAffinityPolicy === 'Honor' && !required.isEmpty()) || c.nodeTaintsPolicy === 'Honor');
    const snap = this.handle.snapshotSharedLister();
    const list = snap.nodeInfoList;
    const index = cs.map((c) => snap.topo.topology(c.topologyKey, list));
    const counted = cs.map((_, i) => snap.topo.countColumn(keys[i]!, list.length));
    const sums = index.map((t) => new Array<number>(t.values.length).fill(-1));
    const domains = cs.map(() => 0);
    const ids = new Int32Array(cs.length);
    const direct = nodes === list;
    if (direct && !check.some(Boolean)) {
      // the common case, column by column over typed arrays
      this.sumRows(cs, index, counted, sums, domains, list, ns);
      nodes = [];
    }
    nextNode: for (let k = 0; k < nodes.length; k++) {
      const ni = nodes[k]!;
      let r = direct ? k : ni.index;
      if (r >= 0 && list[r] !== ni) r = -1;
      // the node must carry every constraint's key
      for (let i = 0; i < cs.length; i++) {
        const id = r >= 0 ? index[i]!.ids[r]! : index[i]!.idOf(ni.labels[cs[i]!.topologyKey]);
        if (id < 0) continue nextNode;
        ids[i] = id;
      }
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (check[i] && (!ni.node || !matchNodeInclusionPolicies(c, pod, ni.node, required))) continue;
        let n = r >= 0 ? counted[i]![r]! : -1;
        if (n < 0) {
          n = countPodsMatchSelector(ni.pods, c.selector, ns);
          if (r >= 0) counted[i]![r] = n;
        }
        const s = sums[i]!;
        const id = ids[i]!;
        while (s.length <= id) s.push(-1);
        if (s[id]! < 0) {
          s[id] = 0;
          domains[i]!++;
        }
        s[id]! += n;
      }
    }
    const paths = cs.map((_, i) => {
      const p = new CriticalPaths();
      const s = sums[i]!;
      for (let id = 0; id < s.length; id++) if (s[id]! >= 0) p.update(index[i]!.values[id]!, s[id]!);
      return p;
    });
    state.write(preFilterStateKey, new PreFilterState(cs, paths, index, sums, domains));
    return [null, null];
  }

  /** Sums matching pods per domain over every snapshot row (nodes lacking a key excluded). */
  private sumRows(cs: SpreadConstraint[], index: TopologyIndex[], counted: Int32Array[], sums: number[][], domains: number[], list: NodeInfo[], ns: string): void {
    const n = list.length;
    let ok: Uint8Array | null = null;
    if (cs.length > 1) {
      ok = new Uint8Array(n).fill(1);
      for (const t of index) for (let r = 0; r < n; r++) if (t.ids[r]! < 0) ok[r] = 0;
    }
    for (let i = 0; i < cs.length; i++) {
      const ids = index[i]!.ids;
      const cnt = counted[i]!;
      const sel = cs[i]!.selector;
      const sum = new Float64Array(index[i]!.values.length).fill(-1);
      let dom = 0;
      for (let r = 0; r < n; r++) {
        const id = ids[r]!;
        if (id < 0 || (ok !== null && ok[r] === 0)) continue;
        let c = cnt[r]!;
        if (c < 0) {
          c = countPodsMatchSelector(list[r]!.pods, sel, ns);
          cnt[r] = c;
        }
        const cur = sum[id]!;
        if (cur < 0) {
          sum[id] = c;
          dom++;
        } else sum[id] = cur + c;
      }
      sums[i] = Array.from(sum);
      domains[i] = dom;
    }
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
      s.add(i, labels[c.topologyKey]!, delta);
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
      const matchNum = s.count(i, v);
      if (matchNum + self - min > c.maxSkew) return new Status(Code.Unschedulable, [ErrReasonConstraintsNotMatch]);
    }
    return null;
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, _cols: NodeColumns, n: number, out: (Status | null)[]): void {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) {
      for (let k = 0; k < n; k++) out[k] = this.filter(state, pod, nodes[k]!);
      return;
    }
    // per constraint: the bound a domain's count must stay within, then rows through the index
    const cs = s.constraints;
    const limit = cs.map((c, i) => c.maxSkew + s.minMatchNum(i, c.minDomains) - (c.selector.matches(pod.metadata?.labels) ? 1 : 0));
    for (let k = 0; k < n; k++) {
      const r = idx[k]!;
      if (r < 0 || r >= s.index[0]!.ids.length) {
        out[k] = this.filter(state, pod, nodes[k]!);
        continue;
      }
      let res: Status | null = null;
      for (let i = 0; i < cs.length; i++) {
        const id = s.index[i]!.ids[r]!;
        if (id < 0) {
          res = new Status(Code.UnschedulableAndUnresolvable, [ErrReasonNodeLabelNotMatch]);
          break;
        }
        const v = s.sums[i]![id];
        if ((v === undefined || v < 0 ? 0 : v) > limit[i]!) {
          res = new Status(Code.Unschedulable, [ErrReasonConstraintsNotMatch]);
          break;
        }
      }
      out[k] = res;
    }
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
    const snap = this.handle.snapshotSharedLister();
    const index = cs.map((c) => snap.topo.topology(c.topologyKey, all));
    const ignored = new Set<string>();
    // per constraint (hostname excepted, counted in Score): -1 = not a domain of a candidate node
    const counts = index.map((t) => new Array<number>(t.values.length).fill(-1));
    const topoSize = cs.map(() => 0);
    for (const ni of filtered) {
      if (requireAll && !nodeLabelsMatchSpreadConstraints(ni.labels, cs)) {
        ignored.add(ni.name);
        continue;
      }
      for (let i = 0; i < cs.length; i++) {
        if (cs[i]!.topologyKey === HOSTNAME) continue;
        const id = index[i]!.idOf(ni.labels[cs[i]!.topologyKey]);
        if (id < 0) continue;
        const s = counts[i]!;
        while (s.length <= id) s.push(-1);
        if (s[id]! < 0) {
          s[id] = 0;
          topoSize[i]!++;
        }
      }
    }
    const weights = cs.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? filtered.length - ignored.size : topoSize[i]!) + 2));
    const required = new RequiredNodeAffinity(pod);
    const ns = pod.metadata?.namespace ?? '';
    const keys = cs.map((c) => countKey(ns, selectorKey(c.selector)));
    const zoneLike = cs.map((c) => c.topologyKey !== HOSTNAME);
    if (zoneLike.some(Boolean)) {
      const check = cs.map((c) => (c.nodeAffinityPolicy === 'Honor' && !required.isEmpty()) || c.nodeTaintsPolicy === 'Honor');
      const counted = cs.map((_, i) => snap.topo.countColumn(keys[i]!, all.length));
      rows: for (let r = 0; r < all.length; r++) {
        if (requireAll) for (let i = 0; i < cs.length; i++) if (index[i]!.ids[r]! < 0) continue rows;
        for (let i = 0; i < cs.length; i++) {
          if (!zoneLike[i]) continue;
          const id = index[i]!.ids[r]!;
          if (id < 0) continue;
          const s = counts[i]!;
          if (id >= s.length || s[id]! < 0) continue;
          const ni = all[r]!;
          if (check[i] && (!ni.node || !matchNodeInclusionPolicies(cs[i]!, pod, ni.node, required))) continue;
          let n = counted[i]![r]!;
          if (n < 0) {
            n = countPodsMatchSelector(ni.pods, cs[i]!.selector, ns);
            counted[i]![r] = n;
          }
          s[id]! += n;
        }
      }
    }
    state.write(preScoreStateKey, new PreScoreState(cs, ignored, counts, weights, keys, index));
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
      let cnt: number;
      if (c.topologyKey === HOSTNAME) cnt = countOnNode(nodeInfo, c.selector, pod.metadata?.namespace ?? '', s.keys[i]!);
      else {
        const id = s.index[i]!.peek(v);
        const x = id < 0 ? undefined : s.counts[i]![id];
        cnt = x === undefined || x < 0 ? 0 : x;
      }
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
