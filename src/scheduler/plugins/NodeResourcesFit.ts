/**
 * NodeResourcesFit: Filter checks that the pod's effective requests (init containers,
 * sidecars and overhead included) plus what is already requested on the node fit its
 * allocatable, and that the node has room for one more pod; Score ranks nodes by the
 * configured strategy (LeastAllocated by default, MostAllocated,
 * RequestedToCapacityRatio).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/noderesources/fit.go
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, Handle, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework/interface.js';
import { NodeInfo } from '../framework/node-info.js';
import { computePodRequests, isExtendedResourceName, type Resource } from '../framework/resource.js';
import { Code, Status } from '../framework/status.js';
import { ActionType, QueueingHint, type ClusterEventWithHint, type PodInfo, type PreFilterResult } from '../framework/types.js';
import type { FunctionShapePoint } from './helper/normalize-score.js';
import { leastAllocatedScorer, mostAllocatedScorer, requestedToCapacityRatioScorer, ResourceAllocationScorer, type ResourceSpec } from './helper/resource-allocation.js';

export const Name = 'NodeResourcesFit';

const preFilterStateKey = 'PreFilter' + Name;
const preScoreStateKey = 'PreScore' + Name;

/** Reason when the node already runs its maximum number of pods. */
export const ErrReasonTooManyPods = 'Too many pods';
/** Reason for an insufficient resource: `Insufficient cpu`, `Insufficient example.com/foo`, … */
export function errReasonInsufficient(resource: string): string {
  return `Insufficient ${resource}`;
}

/** NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1). */
export interface NodeResourcesFitArgs {
  /** extended resources Filter ignores */
  ignoredResources?: string[];
  /** extended resource groups (the part before '/') Filter ignores */
  ignoredResourceGroups?: string[];
  scoringStrategy?: {
    type?: 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
    resources?: ResourceSpec[];
    requestedToCapacityRatio?: { shape?: FunctionShapePoint[] };
  };
}

class PreFilterState implements StateData {
  constructor(readonly request: Resource) {}
  clone(): StateData {
    return this;
  }
}

class PreScoreState implements StateData {
  constructor(readonly podRequests: number[]) {}
  clone(): StateData {
    return this;
  }
}

/** An unmet resource with the numbers behind it. */
export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
}

/**
 * The resources a pod with `podRequest` lacks on the node (empty when it fits).
 * Ignored extended resources (by name or group) are not checked.
 */
export function fitsRequest(podRequest: Resource, nodeInfo: NodeInfo, ignored?: Set<string>, ignoredGroups?: Set<string>): InsufficientResource[] {
  return fitsUsage(podRequest, nodeInfo.allocatable, nodeInfo.requested, nodeInfo.pods.length, ignored, ignoredGroups);
}

/** {@link fitsRequest} against explicit usage: `used` requested by `podCount` pods. */
export function fitsUsage(podRequest: Resource, alloc: Resource, used: Resource, podCount: number, ignored?: Set<string>, ignoredGroups?: Set<string>): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  if (podCount + 1 > alloc.allowedPodNumber) {
    out.push({ resourceName: 'pods', reason: ErrReasonTooManyPods, requested: 1, used: podCount, capacity: alloc.allowedPodNumber });
  }
  if (podRequest.isZero()) return out;
  if (podRequest.milliCPU > 0 && podRequest.milliCPU > alloc.milliCPU - used.milliCPU) {
    out.push({ resourceName: 'cpu', reason: 'Insufficient cpu', requested: podRequest.milliCPU, used: used.milliCPU, capacity: alloc.milliCPU });
  }
  if (podRequest.memory > 0 && podRequest.memory > alloc.memory - used.memory) {
    out.push({ resourceName: 'memory', reason: 'Insufficient memory', requested: podRequest.memory, used: used.memory, capacity: alloc.memory });
  }
  if (podRequest.ephemeralStorage > 0 && podRequest.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) {
    out.push({
      resourceName: 'ephemeral-storage',
      reason: 'Insufficient ephemeral-storage',
      requested: podRequest.ephemeralStorage,
      used: used.ephemeralStorage,
      capacity: alloc.ephemeralStorage,
    });
  }
  if (podRequest.scalar) {
    for (const [name, q] of podRequest.scalar) {
      if (q === 0) continue;
      if (isExtendedResourceName(name)) {
        if (ignored?.has(name)) continue;
        if (ignoredGroups?.size && ignoredGroups.has(name.split('/')[0]!)) continue;
      }
      const a = alloc.getScalar(name);
      const u = used.getScalar(name);
      if (q > a - u) out.push({ resourceName: name, reason: errReasonInsufficient(name), requested: q, used: u, capacity: a });
    }
  }
  return out;
}

/** Allocation-free check of the common case: true when nothing is insufficient. */
function fitsFast(req: Resource, nodeInfo: NodeInfo): boolean {
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) return false;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) return false;
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) return false;
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) return false;
  return req.scalar === null || req.scalar.size === 0;
}

/** Whether the pod would fit an empty node of this kind (for queueing hints). */
function fitsEmptyNode(pod: Pod, node: Node): boolean {
  return fitsRequest(computePodRequests(pod), new NodeInfo(node)).length === 0;
}

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = Name;

  constructor(
    private readonly ignoredResources: Set<string>,
    private readonly ignoredResourceGroups: Set<string>,
    private readonly scorer: ResourceAllocationScorer,
  ) {}

  preFilter(state: CycleState, pod: Pod, _nodes: NodeInfo[]): [PreFilterResult | null, Status | null] {
    state.write(preFilterStateKey, new PreFilterState(computePodRequests(pod)));
    return [null, null];
  }

  preFilterExtensions(): null {
    return null;
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): Status | null {
    const s = state.get<PreFilterState>(preFilterStateKey);
    const req = s ? s.request : computePodRequests(pod);
    if (fitsFast(req, nodeInfo)) return null;
    const insufficient = fitsRequest(req, nodeInfo, this.ignoredResources, this.ignoredResourceGroups);
    if (insufficient.length === 0) return null;
    return new Status(
      Code.Unschedulable,
      insufficient.map((r) => r.reason),
    );
  }

  filterAll(state: CycleState, pod: Pod, nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, n: number, out: (Status | null)[]): number {
    const s = state.get<PreFilterState>(preFilterStateKey);
    const req = s ? s.request : computePodRequests(pod);
    const general = req.scalar !== null && req.scalar.size > 0;
    const rc = req.milliCPU;
    const rm = req.memory;
    const re = req.ephemeralStorage;
    const { allocCPU, allocMem, allocEph, allocPods, reqCPU, reqMem, reqEph, pods } = cols;
    let bad = 0;
    for (let i = 0; i < n; i++) {
      const r = idx[i]!;
      if (r < 0 || general) {
        const s = this.filter(state, pod, nodes[i]!);
        out[i] = s;
        if (s !== null) bad++;
        continue;
      }
      const short =
        pods[r]! + 1 > allocPods[r]! || (rc > 0 && rc > allocCPU[r]! - reqCPU[r]!) || (rm > 0 && rm > allocMem[r]! - reqMem[r]!) || (re > 0 && re > allocEph[r]! - reqEph[r]!);
      const s = short ? this.filter(state, pod, nodes[i]!) : null;
      out[i] = s;
      if (s !== null) bad++;
    }
    return bad;
  }

  /**
   * The reasons the pod would still not fit the node with `removed` (pods on it) gone —
   * what Filter would say on a copy of the node without them. Used by preemption to
   * rule out nodes without copying them.
   */
  insufficientWithout(state: CycleState, pod: Pod, nodeInfo: NodeInfo, removed: PodInfo[]): string[] {
    const s = state.get<PreFilterState>(preFilterStateKey);
    const req = s ? s.request : computePodRequests(pod);
    const used = nodeInfo.requested.clone();
    for (const pi of removed) used.sub(pi.requests);
    return fitsUsage(req, nodeInfo.allocatable, used, nodeInfo.pods.length - removed.length, this.ignoredResources, this.ignoredResourceGroups).map((r) => r.reason);
  }

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
      {
        event: { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' },
        queueingHintFn: (_pod, oldObj) => ((oldObj as Pod | undefined)?.spec?.nodeName ? QueueingHint.Queue : QueueingHint.QueueSkip),
      },
      {
        event: {
          resource: 'Node',
          actionType: ActionType.Add | ActionType.UpdateNodeAllocatable | ActionType.UpdateNodeTaint | ActionType.UpdateNodeLabel,
          label: 'NodeAddOrAllocatableChange',
        },
        queueingHintFn: (pod, _oldObj, newObj) => (newObj && fitsEmptyNode(pod, newObj as Node) ? QueueingHint.Queue : QueueingHint.QueueSkip),
      },
    ];
  }
}

/** Builds the plugin; throws on an unknown scoring strategy. */
export function New(args: unknown, _handle: Handle): NodeResourcesFit {
  const a = (args ?? {}) as NodeResourcesFitArgs;
  const strategy = a.scoringStrategy ?? {};
  const resources = strategy.resources ?? [
    { name: 'cpu', weight: 1 },
    { name: 'memory', weight: 1 },
  ];
  const type = strategy.type ?? 'LeastAllocated';
  let f;
  let fast: 'least' | 'most' | null = null;
  switch (type) {
    case 'LeastAllocated':
      f = leastAllocatedScorer(resources);
      fast = 'least';
      break;
    case 'MostAllocated':
      f = mostAllocatedScorer(resources);
      fast = 'most';
      break;
    case 'RequestedToCapacityRatio':
      f = requestedToCapacityRatioScorer(resources, strategy.requestedToCapacityRatio?.shape ?? []);
      break;
    default:
      throw new Error(`scoring strategy ${String(type)} is not supported`);
  }
  return new NodeResourcesFit(new Set(a.ignoredResources ?? []), new Set(a.ignoredResourceGroups ?? []), new ResourceAllocationScorer(resources, f, false, fast));
}
