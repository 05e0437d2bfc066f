/**
 * NodeResourcesBalancedAllocation: favors nodes whose cpu and memory (or configured
 * resources) would be used in similar fractions with the pod placed:
 * score = (1 − std of the fractions) · 100, using actual requests.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, Handle, PreScorePlugin, ScorePlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import type { Status } from '../framework/status.js';
import { ActionType, type ClusterEventWithHint } from '../framework/types.js';
import { balancedResourceScorer, ResourceAllocationScorer, type ResourceSpec } from './helper/resource-allocation.js';

export const Name = 'NodeResourcesBalancedAllocation';

const preScoreStateKey = 'PreScore' + Name;

/** NodeResourcesBalancedAllocationArgs (kubescheduler.config.k8s.io/v1). */
export interface NodeResourcesBalancedAllocationArgs {
  resources?: ResourceSpec[];
}

class PreScoreState implements StateData {
  constructor(readonly podRequests: number[]) {}
  clone(): StateData {
    return this;
  }
}

export class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = Name;

  constructor(private readonly scorer: ResourceAllocationScorer) {}

  preScore(state: CycleState, pod: Pod, _nodes: NodeInfo[]): Status | null {
    state.write(preScoreStateKey, new PreScoreState(this.scorer.podRequests(pod)));
    return null;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const s = state.get<PreScoreState>(preScoreStateKey);
    return this.scorer.score(nodeInfo, s ? s.podRequests : this.scorer.podRequests(pod));
  }

  scoreAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, scores: number[]): Status | null {
    const s = state.get<PreScoreState>(preScoreStateKey);
    const req = s ? s.podRequests : this.scorer.podRequests(pod);
    this.scorer.scoreAll(nodes, idx, cols, req, scores);
    return null;
  }

  scoreExtensions(): null {
    return null;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      { event: { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' } },
      { event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeAllocatable, label: 'NodeAddOrAllocatableChange' } },
    ];
  }
}

export function New(args: unknown, _handle: Handle): NodeResourcesBalancedAllocation {
  const a = (args ?? {}) as NodeResourcesBalancedAllocationArgs;
  const resources = a.resources ?? [
    { name: 'cpu', weight: 1 },
    { name: 'memory', weight: 1 },
  ];
  return new NodeResourcesBalancedAllocation(new ResourceAllocationScorer(resources, balancedResourceScorer, true, 'balanced'));
}
