/**
 * NodeAffinity: Filter enforces spec.nodeSelector, required node affinity and the
 * profile's `addedAffinity`; PreFilter narrows candidates when required terms pin
 * `metadata.name`; Score sums the weights of matching preferred terms (pod's and
 * added), normalized to 0–100.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Node, NodeAffinity as V1NodeAffinity, Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreFilterPlugin, PreScorePlugin, ScoreExtensions, ScorePlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, MAX_NODE_SCORE, PreFilterResult, QueueingHint, type ClusterEventWithHint } from '../framework/types.js';
import { CompiledNodeSelector, PreferredSchedulingTerms, RequiredNodeAffinity } from './helper/node-affinity.js';
import { defaultNormalizeScore } from './helper/normalize-score.js';

export const Name = 'NodeAffinity';

const preFilterStateKey = 'PreFilter' + Name;
const preScoreStateKey = 'PreScore' + Name;

/** Reason when the pod's node selector/affinity does not match. */
export const ErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
/** Reason when the profile's addedAffinity does not match. */
export const errReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
/** Reason when required terms pin disjoint node names. */
export const errReasonConflict = 'pod affinity terms conflict';

/** NodeAffinityArgs (kubescheduler.config.k8s.io/v1). */
export interface NodeAffinityArgs {
  addedAffinity?: V1NodeAffinity;
}

class PreFilterState implements StateData {
  constructor(readonly required: RequiredNodeAffinity) {}
  clone(): StateData {
    return this;
  }
}

class PreScoreState implements StateData {
  constructor(readonly preferred: PreferredSchedulingTerms | null) {}
  clone(): StateData {
    return this;
  }
}

function podPreferred(pod: Pod): PreferredSchedulingTerms | null {
  const terms = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  return terms ? new PreferredSchedulingTerms(terms) : null;
}

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = Name;

  constructor(
    private readonly addedNodeSelector: CompiledNodeSelector | null,
    private readonly addedPrefSchedTerms: PreferredSchedulingTerms | null,
  ) {}

  preFilter(state: CycleState, pod: Pod, _nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (!required && !this.addedNodeSelector && !pod.spec?.nodeSelector) return [null, new Status(Code.Skip)];
    state.write(preFilterStateKey, new PreFilterState(new RequiredNodeAffinity(pod)));
    const terms = required?.nodeSelectorTerms ?? [];
    if (terms.length === 0) return [null, null];
    let names: Set<string> | null = null;
    for (const t of terms) {
      let termNames: Set<string> | null = null;
      for (const r of t.matchFields ?? []) {
        if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
        const s = new Set(r.values ?? []);
        if (termNames === null) termNames = s;
        else {
          const prev: Set<string> = termNames;
          termNames = new Set<string>();
          for (const n of prev) if (s.has(n)) termNames.add(n);
        }
      }
      // a term without a metadata.name constraint allows every node (terms are ORed)
      if (termNames === null) return [null, null];
      names = names ?? new Set();
      for (const n of termNames) names.add(n);
    }
    if (names && names.size === 0) return [null, new Status(Code.UnschedulableAndUnresolvable, [errReasonConflict])];
    return [names ? new PreFilterResult(names) : null, null];
  }

  preFilterExtensions(): null {
    return null;
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const node = nodeInfo.node!;
    if (this.addedNodeSelector && !this.addedNodeSelector.match(node)) {
      return new Status(Code.UnschedulableAndUnresolvable, [errReasonEnforced]);
    }
    const s = state.get<PreFilterState>(preFilterStateKey);
    const required = s ? s.required : new RequiredNodeAffinity(pod);
    if (!required.match(node)) return new Status(Code.UnschedulableAndUnresolvable, [ErrReasonPod]);
    return null;
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, n: number, out: (Status | null)[]): void {
    for (let i = 0; i < n; i++) out[i] = this.filter(state, pod, nodes[i]!);
  }

  preScore(state: CycleState, pod: Pod, _nodes: NodeInfo[]): Status | null {
    const preferred = podPreferred(pod);
    if (!preferred && !this.addedPrefSchedTerms) return new Status(Code.Skip);
    state.write(preScoreStateKey, new PreScoreState(preferred));
    return null;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const node = nodeInfo.node!;
    let count = 0;
    if (this.addedPrefSchedTerms) count += this.addedPrefSchedTerms.score(node);
    const s = state.get<PreScoreState>(preScoreStateKey);
    const preferred = s ? s.preferred : podPreferred(pod);
    if (preferred) count += preferred.score(node);
    return count;
  }

  scoreAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, scores: number[]): Status | null {
    for (let i = 0; i < nodes.length; i++) scores[i] = this.score(state, pod, nodes[i]!) as number;
    return null;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: number[]): Status | null {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeAddOrLabelChange' },
        queueingHintFn: (pod, oldObj, newObj) => {
          const n = newObj as Node | undefined;
          if (!n) return QueueingHint.QueueSkip;
          if (this.addedNodeSelector && !this.addedNodeSelector.match(n)) return QueueingHint.QueueSkip;
          const req = new RequiredNodeAffinity(pod);
          if (!req.match(n)) return QueueingHint.QueueSkip;
          if (!oldObj) return QueueingHint.Queue;
          return req.match(oldObj as Node) ? QueueingHint.QueueSkip : QueueingHint.Queue;
        },
      },
    ];
  }
}

export function New(args: unknown, _handle: Handle): NodeAffinity {
  const a = (args ?? {}) as NodeAffinityArgs;
  const req = a.addedAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const pref = a.addedAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  return new NodeAffinity(req ? new CompiledNodeSelector(req) : null, pref && pref.length ? new PreferredSchedulingTerms(pref) : null);
}
