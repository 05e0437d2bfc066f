/**
 * InterPodAffinity: Filter enforces the pod's required pod affinity and anti-affinity
 * and the required anti-affinity of pods already placed; Score adds the weights of
 * matching preferred terms (both directions) and of existing pods' required affinity
 * terms (hardPodAffinityWeight), per topology domain, normalized to 0–100.
 * Namespaces come from `namespaces` / `namespaceSelector` (the pod's own when neither).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/interpodaffinity/scoring.go
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Labels } from '../../apimachinery/labels.js';
import { AffinityTerm, podMatchesAllAffinityTerms, type WeightedAffinityTerm } from '../framework/affinity.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreFilterExtensions, PreFilterPlugin, PreScorePlugin, ScoreExtensions, ScorePlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { asStatus, Code, Status } from '../framework/status.js';
import { ActionType, MAX_NODE_SCORE, PodInfo, QueueingHint, type ClusterEventWithHint, type PreFilterResult } from '../framework/types.js';
import { TopologyCounts } from './helper/topology-counts.js';

export const Name = 'InterPodAffinity';

const preFilterStateKey = 'PreFilter' + Name;
const preScoreStateKey = 'PreScore' + Name;

/** Reasons, as upstream. */
export const ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
export const ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";

/** InterPodAffinityArgs (kubescheduler.config.k8s.io/v1). */
export interface InterPodAffinityArgs {
  /** weight of existing pods' required affinity terms in scoring (0–100, default 1) */
  hardPodAffinityWeight?: number;
  ignorePreferredTermsOfExistingPods?: boolean;
}

/** The incoming pod's terms with namespaceSelector unrolled into namespaces. */
interface MergedTerms {
  pod: Pod;
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: WeightedAffinityTerm[];
  preferredAntiAffinity: WeightedAffinityTerm[];
}

class PreFilterState implements StateData {
  constructor(
    readonly terms: MergedTerms,
    readonly namespaceLabels: Labels | undefined,
    readonly existingAntiAffinityCounts: TopologyCounts,
    readonly affinityCounts: TopologyCounts,
    readonly antiAffinityCounts: TopologyCounts,
  ) {}

  clone(): StateData {
    return new PreFilterState(this.terms, this.namespaceLabels, this.existingAntiAffinityCounts.clone(), this.affinityCounts.clone(), this.antiAffinityCounts.clone());
  }

  /** Upstream updateWithPod: counts `pi` (added: +1, removed: −1) placed on `node`. */
  updateWithPod(pi: PodInfo, nodeLabels: Labels, delta: number): void {
    this.existingAntiAffinityCounts.updateWithAntiAffinityTerms(pi.requiredAntiAffinityTerms, this.terms.pod, this.namespaceLabels, nodeLabels, delta);
    this.affinityCounts.updateWithAffinityTerms(this.terms.requiredAffinity, pi.pod, nodeLabels, delta);
    this.antiAffinityCounts.updateWithAntiAffinityTerms(this.terms.requiredAntiAffinity, pi.pod, undefined, nodeLabels, delta);
  }
}

class PreScoreState implements StateData {
  constructor(
    /** topology key → value → score */
    readonly topologyScore: Map<string, Map<string, number>>,
  ) {}
  clone(): StateData {
    return this;
  }
}

/** `k=v,…` sorted, identifying a label set. */
function labelsKey(l: Labels | undefined): string {
  if (!l) return '';
  const ks = Object.keys(l);
  if (ks.length === 0) return '';
  ks.sort();
  return ks.map((k) => `${k}=${l[k]}`).join(',');
}

function addScore(m: Map<string, Map<string, number>>, key: string, value: string, delta: number): void {
  let inner = m.get(key);
  if (!inner) m.set(key, (inner = new Map()));
  inner.set(value, (inner.get(value) ?? 0) + delta);
}

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, PreFilterExtensions, EnqueueExtensions {
  readonly name = Name;

  constructor(
    private readonly handle: Handle,
    private readonly hardPodAffinityWeight: number,
    private readonly ignorePreferredTermsOfExistingPods: boolean,
  ) {}

  /** Labels of a namespace from the lister (undefined when unknown). */
  private namespaceLabels(ns: string): Labels | undefined {
    return (this.handle.listers.namespace(ns)?.metadata?.labels as Labels | undefined) ?? undefined;
  }

  /** A copy of the term with its namespaceSelector unrolled (upstream mergeAffinityTermNamespacesIfNotEmpty). */
  private merge(t: AffinityTerm): AffinityTerm {
    if (t.namespaceSelector === null || t.namespaceSelector.empty()) return t;
    const ns = new Set(t.namespaces);
    for (const n of this.handle.listers.namespaces()) if (t.namespaceSelector.matches(n.metadata?.labels)) ns.add(n.metadata?.name ?? '');
    return new AffinityTerm(ns, t.selector, t.topologyKey, null);
  }

  private mergedTerms(pi: PodInfo, preferred: boolean): MergedTerms {
    const m = (l: AffinityTerm[]) => l.map((t) => this.merge(t));
    const w = (l: WeightedAffinityTerm[]) => l.map((x) => ({ term: this.merge(x.term), weight: x.weight }));
    return {
      pod: pi.pod,
      requiredAffinity: preferred ? [] : m(pi.requiredAffinityTerms),
      requiredAntiAffinity: preferred ? [] : m(pi.requiredAntiAffinityTerms),
      preferredAffinity: preferred ? w(pi.preferredAffinityTerms) : [],
      preferredAntiAffinity: preferred ? w(pi.preferredAntiAffinityTerms) : [],
    };
  }

  preFilter(state: CycleState, pod: Pod, nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    const snap = this.handle.snapshotSharedLister();
    const withAnti = snap.havePodsWithRequiredAntiAffinityList();
    const a = pod.spec?.affinity;
    const hasRequired = !!(a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length || a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length);
    if (withAnti.length === 0 && !hasRequired) return [null, new Status(Code.Skip)];
    const pi = state.podInfo?.pod === pod ? state.podInfo : new PodInfo(pod);
    if (pi.parseError) return [null, new Status(Code.UnschedulableAndUnresolvable, [`parsing pod: ${pi.parseError}`])];
    const terms = this.mergedTerms(pi, false);
    const nsLabels = this.namespaceLabels(pod.metadata?.namespace ?? '');

    // per node, memoized by the incoming pod's identity as terms see it: the topology
    // keys of the existing pods' anti-affinity terms that select it
    const existing = new TopologyCounts();
    const incomingKey = `ipa-exist\x00${pod.metadata?.namespace ?? ''}\x00${labelsKey(pod.metadata?.labels)}\x00${labelsKey(nsLabels)}`;
    for (const ni of withAnti) {
      if (!ni.node) continue;
      let keys = ni.memoGet<string[]>(incomingKey);
      if (keys === undefined) {
        keys = [];
        for (const ep of ni.podsWithRequiredAntiAffinity) for (const t of ep.requiredAntiAffinityTerms) if (t.matches(pod, nsLabels)) keys.push(t.topologyKey);
        ni.memoSet(incomingKey, keys);
      }
      for (const k of keys) existing.update(ni.labels, k, 1);
    }
    const affinity = new TopologyCounts();
    const anti = new TopologyCounts();
    const aff = terms.requiredAffinity;
    const affKey = aff.length ? `ipa-aff\x00${aff.map((t) => t.key()).join('\x02')}` : '';
    const antiKeys = terms.requiredAntiAffinity.map((t) => `ipa-anti\x00${t.key()}`);
    if (aff.length || antiKeys.length) {
      const direct = nodes === snap.nodeInfoList;
      const podCounts = snap.cols.pods;
      for (let k = 0; k < nodes.length; k++) {
        // rows without pods contribute nothing: skip them without touching the NodeInfo
        if (direct && podCounts[k] === 0) continue;
        const ni = nodes[k]!;
        if (!ni.node || ni.pods.length === 0) continue;
        if (aff.length) {
          let n = ni.memoGet<number>(affKey);
          if (n === undefined) {
            n = 0;
            for (const ep of ni.pods) if (podMatchesAllAffinityTerms(aff, ep.pod)) n++;
            ni.memoSet(affKey, n);
          }
          if (n) for (const t of aff) affinity.update(ni.labels, t.topologyKey, n);
        }
        for (let i = 0; i < antiKeys.length; i++) {
          const t = terms.requiredAntiAffinity[i]!;
          let n = ni.memoGet<number>(antiKeys[i]!);
          if (n === undefined) {
            n = 0;
            for (const ep of ni.pods) if (t.matches(ep.pod, undefined)) n++;
            ni.memoSet(antiKeys[i]!, n);
          }
          if (n) anti.update(ni.labels, t.topologyKey, n);
        }
      }
    }
    if (existing.size === 0 && terms.requiredAffinity.length === 0 && terms.requiredAntiAffinity.length === 0) return [null, new Status(Code.Skip)];
    state.write(preFilterStateKey, new PreFilterState(terms, nsLabels, existing, affinity, anti));
    return [null, null];
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, _podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`reading "${preFilterStateKey}" from cycleState: not found`));
    s.updateWithPod(podInfoToAdd, nodeInfo.labels, 1);
    return null;
  }

  removePod(state: CycleState, _podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`reading "${preFilterStateKey}" from cycleState: not found`));
    s.updateWithPod(podInfoToRemove, nodeInfo.labels, -1);
    return null;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    if (!s) return asStatus(new Error(`reading "${preFilterStateKey}" from cycleState: not found`));
    const labels = nodeInfo.labels;
    if (!satisfyPodAffinity(s, labels)) return new Status(Code.UnschedulableAndUnresolvable, [ErrReasonAffinityRulesNotMatch]);
    if (!satisfyPodAntiAffinity(s, labels)) return new Status(Code.Unschedulable, [ErrReasonAntiAffinityRulesNotMatch]);
    if (!satisfyExistingPodsAntiAffinity(s, labels)) return new Status(Code.Unschedulable, [ErrReasonExistingAntiAffinityRulesNotMatch]);
    return null;
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, n: number, out: (Status | null)[]): void {
    for (let i = 0; i < n; i++) out[i] = this.filter(state, pod, nodes[i]!);
  }

  preScore(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status | null {
    if (nodes.length === 0) return null;
    const a = pod.spec?.affinity;
    const hasConstraints = !!(
      a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length || a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length
    );
    if (this.ignorePreferredTermsOfExistingPods && !hasConstraints) return new Status(Code.Skip);
    const snap = this.handle.snapshotSharedLister();
    const all = hasConstraints ? snap.list() : snap.havePodsWithAffinityList();
    if (all.length === 0) return new Status(Code.Skip);
    const pi = state.podInfo?.pod === pod ? state.podInfo : new PodInfo(pod);
    if (pi.parseError) return asStatus(new Error(`failed to parse pod: ${pi.parseError}`));
    const terms = this.mergedTerms(pi, true);
    const nsLabels = this.namespaceLabels(pod.metadata?.namespace ?? '');
    const topo = new Map<string, Map<string, number>>();
    const processTerm = (t: AffinityTerm, weight: number, p: Pod, ns: Labels | undefined, nodeLabels: Labels, mult: number) => {
      if (!t.matches(p, ns)) return;
      const v = nodeLabels[t.topologyKey];
      if (v !== undefined) addScore(topo, t.topologyKey, v, weight * mult);
    };
    const hard = this.hardPodAffinityWeight > 0;
    for (const ni of all) {
      if (!ni.node) continue;
      const nl = ni.labels;
      const podsToProcess = hasConstraints ? ni.pods : ni.podsWithAffinity;
      for (const ep of podsToProcess) {
        // existing pods only matter through their preferred terms, or required affinity with a hard weight
        if (!hasConstraints && !ep.preferredAffinityTerms.length && !ep.preferredAntiAffinityTerms.length && !(hard && ep.requiredAffinityTerms.length)) continue;
        for (const w of terms.preferredAffinity) processTerm(w.term, w.weight, ep.pod, undefined, nl, 1);
        for (const w of terms.preferredAntiAffinity) processTerm(w.term, w.weight, ep.pod, undefined, nl, -1);
        if (hard) for (const t of ep.requiredAffinityTerms) processTerm(t, this.hardPodAffinityWeight, pod, nsLabels, nl, 1);
        for (const w of ep.preferredAffinityTerms) processTerm(w.term, w.weight, pod, nsLabels, nl, 1);
        for (const w of ep.preferredAntiAffinityTerms) processTerm(w.term, w.weight, pod, nsLabels, nl, -1);
      }
    }
    if (topo.size === 0) return new Status(Code.Skip);
    state.write(preScoreStateKey, new PreScoreState(topo));
    return null;
  }

  score(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): number | Status {
    const s = state.get<PreScoreState>(preScoreStateKey);
    if (!s) return asStatus(new Error(`reading "${preScoreStateKey}" from cycleState: not found`));
    let score = 0;
    const labels = nodeInfo.labels;
    for (const [k, values] of s.topologyScore) {
      const v = labels[k];
      if (v !== undefined) score += values.get(v) ?? 0;
    }
    return score;
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

  /** Min–max normalization to [0, 100] (all equal → 0). */
  normalizeScore(state: CycleState, _pod: Pod, scores: number[]): Status | null {
    const s = state.get<PreScoreState>(preScoreStateKey);
    if (!s || s.topologyScore.size === 0) return null;
    let min = Infinity;
    let max = -Infinity;
    for (const v of scores) {
      if (v > max) max = v;
      if (v < min) min = v;
    }
    const diff = max - min;
    for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc((MAX_NODE_SCORE * (scores[i]! - min)) / diff) : 0;
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete, label: 'AssignedPodChange' },
        queueingHintFn: (pod, oldObj, newObj) => podChangeHint(pod, oldObj as Pod | undefined, newObj as Pod | undefined),
      },
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeAddOrLabelChange' },
        queueingHintFn: (pod, oldObj, newObj) => nodeChangeHint(pod, oldObj as Node | undefined, newObj as Node | undefined),
      },
    ];
  }
}

function satisfyPodAffinity(s: PreFilterState, labels: Labels): boolean {
  let podsExist = true;
  for (const t of s.terms.requiredAffinity) {
    const v = labels[t.topologyKey];
    if (v === undefined) return false; // all topology labels must exist on the node
    if (s.affinityCounts.get(t.topologyKey, v) <= 0) podsExist = false;
  }
  if (!podsExist) {
    // the first pod of a group with affinity to itself may go anywhere its terms' keys exist
    return s.affinityCounts.size === 0 && podMatchesAllAffinityTerms(s.terms.requiredAffinity, s.terms.pod);
  }
  return true;
}

function satisfyPodAntiAffinity(s: PreFilterState, labels: Labels): boolean {
  if (s.antiAffinityCounts.size === 0) return true;
  for (const t of s.terms.requiredAntiAffinity) {
    const v = labels[t.topologyKey];
    if (v !== undefined && s.antiAffinityCounts.get(t.topologyKey, v) > 0) return false;
  }
  return true;
}

function satisfyExistingPodsAntiAffinity(s: PreFilterState, labels: Labels): boolean {
  const c = s.existingAntiAffinityCounts;
  if (c.size === 0) return true;
  // only the topology keys that have counts can match one of the node's labels
  for (const k of c.keys()) {
    const v = labels[k];
    if (v !== undefined && c.get(k, v) > 0) return false;
  }
  return true;
}

/** Pod events: retried when the changed pod has affinity terms or may match the pod's terms (upstream isSchedulableAfterPodChange, simplified to a label check). */
function podChangeHint(pod: Pod, oldPod: Pod | undefined, newPod: Pod | undefined): QueueingHint {
  const changed = newPod ?? oldPod;
  if (!changed) return QueueingHint.Queue;
  const a = pod.spec?.affinity;
  if (!a?.podAffinity && !a?.podAntiAffinity && !changed.spec?.affinity?.podAntiAffinity && !changed.spec?.affinity?.podAffinity) {
    return QueueingHint.QueueSkip;
  }
  return QueueingHint.Queue;
}

/** Node events: only nodes carrying labels matter. */
function nodeChangeHint(_pod: Pod, oldNode: Node | undefined, newNode: Node | undefined): QueueingHint {
  if (!newNode) return QueueingHint.QueueSkip;
  if (!oldNode) return QueueingHint.Queue;
  return JSON.stringify(oldNode.metadata?.labels ?? {}) === JSON.stringify(newNode.metadata?.labels ?? {}) ? QueueingHint.QueueSkip : QueueingHint.Queue;
}

/** Builds the plugin; throws on an invalid hardPodAffinityWeight (upstream validation message). */
export function New(args: unknown, handle: Handle): InterPodAffinity {
  const a = (args ?? {}) as InterPodAffinityArgs;
  const w = a.hardPodAffinityWeight ?? 1;
  if (w < 0 || w > 100) throw new Error(`hardPodAffinityWeight: Invalid value: ${w}: not in valid range [0-100]`);
  return new InterPodAffinity(handle, w, a.ignorePreferredTermsOfExistingPods ?? false);
}
