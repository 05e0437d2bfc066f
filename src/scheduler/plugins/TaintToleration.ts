/**
 * TaintToleration: Filter rejects nodes with a NoSchedule/NoExecute taint the pod does
 * not tolerate; Score counts untolerated PreferNoSchedule taints and NormalizeScore
 * reverses the counts, so fewer such taints score higher.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
 */
import { F_TAINTED, type NodeColumns } from '../framework/node-columns.js';
import type { Node, Pod, Toleration } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreScorePlugin, ScoreExtensions, ScorePlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, MAX_NODE_SCORE, QueueingHint, type ClusterEventWithHint } from '../framework/types.js';
import { defaultNormalizeScore } from './helper/normalize-score.js';
import { doNotScheduleTaintsFilter, findMatchingUntoleratedTaint, tolerationsTolerateTaint } from './helper/taints.js';

export const Name = 'TaintToleration';

const preScoreStateKey = 'PreScore' + Name;

/** Filter reason for one untolerated taint: `node(s) had untolerated taint {key: value}`. */
export function errReasonUntoleratedTaint(key: string, value: string): string {
  return `node(s) had untolerated taint {${key}: ${value}}`;
}

class PreScoreState implements StateData {
  constructor(readonly tolerationsPreferNoSchedule: Toleration[]) {}
  clone(): StateData {
    return this;
  }
}

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, ScoreExtensions, EnqueueExtensions {
  readonly name = Name;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const taints = nodeInfo.node?.spec?.taints;
    if (!taints || taints.length === 0) return null;
    const t = findMatchingUntoleratedTaint(taints, pod.spec?.tolerations, doNotScheduleTaintsFilter);
    if (!t) return null;
    return new Status(Code.UnschedulableAndUnresolvable, [errReasonUntoleratedTaint(t.key, t.value ?? '')]);
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, n: number, out: (Status | null)[]): number {
    const flags = cols.flags;
    let bad = 0;
    for (let i = 0; i < n; i++) {
      const r = idx[i]!;
      const s = r >= 0 && (flags[r]! & F_TAINTED) === 0 ? null : this.filter(state, pod, nodes[i]!);
      out[i] = s;
      if (s !== null) bad++;
    }
    return bad;
  }

  preScore(state: CycleState, pod: Pod, _nodes: NodeInfo[]): Status | null {
    const tols = (pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    state.write(preScoreStateKey, new PreScoreState(tols));
    return null;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const taints = nodeInfo.node?.spec?.taints;
    if (!taints || taints.length === 0) return 0;
    const s = state.get<PreScoreState>(preScoreStateKey);
    const tols = s ? s.tolerationsPreferNoSchedule : (pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    let n = 0;
    for (const t of taints) if (t.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tols, t)) n++;
    return n;
  }

  scoreAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, scores: number[]): Status | null {
    const flags = cols.flags;
    for (let i = 0; i < nodes.length; i++) {
      const r = idx[i]!;
      scores[i] = r >= 0 && (flags[r]! & F_TAINTED) === 0 ? 0 : (this.score(state, pod, nodes[i]!) as number);
    }
    return null;
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: number[]): Status | null {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint, label: 'NodeAddOrTaintChange' },
        queueingHintFn: (pod, oldObj, newObj) => {
          const tols = pod.spec?.tolerations;
          const untolerated = (n: Node | undefined) => !n || !!findMatchingUntoleratedTaint(n.spec?.taints, tols, doNotScheduleTaintsFilter);
          const was = oldObj ? untolerated(oldObj as Node) : true;
          return was && !untolerated(newObj as Node | undefined) ? QueueingHint.Queue : QueueingHint.QueueSkip;
        },
      },
      { event: { resource: 'Pod', actionType: ActionType.UpdatePodTolerations, label: 'PodTolerationChange' } },
    ];
  }
}

export function New(_args: unknown, _handle: Handle): TaintToleration {
  return new TaintToleration();
}
