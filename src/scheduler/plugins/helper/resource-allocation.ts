/**
 * Resource-allocation scoring shared by NodeResourcesFit (LeastAllocated,
 * MostAllocated, RequestedToCapacityRatio) and NodeResourcesBalancedAllocation: for
 * each configured resource, the node's allocatable and what would be requested with
 * the pod on it (non-zero requests for cpu/memory unless `useRequested`), then a
 * strategy-specific function of those vectors.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/noderesources/resource_allocation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/noderesources/least_allocated.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/noderesources/most_allocated.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go
 */
import type { NodeColumns } from '../../framework/node-columns.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { computePodRequests, isScalarResourceName, type Resource } from '../../framework/resource.js';
import { MAX_NODE_SCORE } from '../../framework/types.js';
import { buildBrokenLinearFunction, type FunctionShapePoint } from './normalize-score.js';

/** A resource and its weight in the score. */
export interface ResourceSpec {
  name: string;
  weight?: number;
}

/** Scores the per-resource vectors (same order as the configured resources). */
export type Scorer = (requested: number[], allocatable: number[]) => number;

function get(r: Resource, name: string): number {
  switch (name) {
    case 'cpu':
      return r.milliCPU;
    case 'memory':
      return r.memory;
    case 'ephemeral-storage':
      return r.ephemeralStorage;
    default:
      return r.getScalar(name);
  }
}

const CPU = 0;
const MEMORY = 1;
const EPHEMERAL = 2;
const SCALAR = 3;

/** Built-in strategies with an allocation-free path for exactly [cpu, memory]. */
export type FastKind = 'least' | 'most' | 'balanced' | null;

export class ResourceAllocationScorer {
  private readonly req: number[];
  private readonly alloc: number[];
  /** per configured resource: CPU, MEMORY, EPHEMERAL or SCALAR */
  private readonly kinds: number[];
  /** cpu and memory weights of the fast path */
  private readonly w0: number;
  private readonly w1: number;
  private readonly fast: FastKind;

  constructor(
    readonly resources: ResourceSpec[],
    private readonly scorer: Scorer,
    /** use actual requests (BalancedAllocation) instead of non-zero ones */
    private readonly useRequested: boolean,
    fast: FastKind = null,
  ) {
    this.req = new Array(resources.length).fill(0);
    this.alloc = new Array(resources.length).fill(0);
    this.kinds = resources.map((r) => (r.name === 'cpu' ? CPU : r.name === 'memory' ? MEMORY : r.name === 'ephemeral-storage' ? EPHEMERAL : SCALAR));
    const cpuMem = this.kinds.length === 2 && this.kinds[0] === CPU && this.kinds[1] === MEMORY;
    this.fast = cpuMem ? fast : null;
    this.w0 = resources[0]?.weight ?? 1;
    this.w1 = resources[1]?.weight ?? 1;
  }

  /**
   * Scores many nodes: the [cpu, memory] fast path reads the snapshot columns (rows
   * `idx[i]`), other configurations (or rows −1) go node by node.
   */
  scoreAll(nodes: NodeInfo[], idx: Int32Array, cols: NodeColumns, podRequests: number[], scores: number[]): void {
    const n = nodes.length;
    if (this.fast === null) {
      for (let i = 0; i < n; i++) scores[i] = this.score(nodes[i]!, podRequests);
      return;
    }
    const reqC = this.useRequested ? cols.reqCPU : cols.nzCPU;
    const reqM = this.useRequested ? cols.reqMem : cols.nzMem;
    const allocC = cols.allocCPU;
    const allocM = cols.allocMem;
    const p0 = podRequests[0]!;
    const p1 = podRequests[1]!;
    // one monomorphic loop per strategy, the arithmetic of combine() inlined for the
    // common row (both allocatables non-zero)
    const w0 = this.w0;
    const w1 = this.w1;
    const ws = w0 + w1;
    switch (this.fast) {
      case 'least':
        for (let i = 0; i < n; i++) {
          const r = idx[i]!;
          if (r < 0) {
            scores[i] = this.score(nodes[i]!, podRequests);
            continue;
          }
          const a0 = allocC[r]!;
          const a1 = allocM[r]!;
          if (a0 === 0 || a1 === 0) {
            scores[i] = this.combine(a0, a1, reqC[r]! + p0, reqM[r]! + p1);
            continue;
          }
          const q0 = reqC[r]! + p0;
          const q1 = reqM[r]! + p1;
          const s0 = q0 > a0 ? 0 : Math.trunc(((a0 - q0) * MAX_NODE_SCORE) / a0);
          const s1 = q1 > a1 ? 0 : Math.trunc(((a1 - q1) * MAX_NODE_SCORE) / a1);
          scores[i] = Math.trunc((s0 * w0 + s1 * w1) / ws);
        }
        return;
      case 'balanced':
        for (let i = 0; i < n; i++) {
          const r = idx[i]!;
          if (r < 0) {
            scores[i] = this.score(nodes[i]!, podRequests);
            continue;
          }
          const a0 = allocC[r]!;
          const a1 = allocM[r]!;
          if (a0 === 0 || a1 === 0) {
            scores[i] = MAX_NODE_SCORE;
            continue;
          }
          let f0 = (reqC[r]! + p0) / a0;
          let f1 = (reqM[r]! + p1) / a1;
          if (f0 > 1) f0 = 1;
          if (f1 > 1) f1 = 1;
          scores[i] = Math.trunc((1 - Math.abs((f0 - f1) / 2)) * MAX_NODE_SCORE);
        }
        return;
      default:
        for (let i = 0; i < n; i++) {
          const r = idx[i]!;
          scores[i] = r < 0 ? this.score(nodes[i]!, podRequests) : this.combine(allocC[r]!, allocM[r]!, reqC[r]! + p0, reqM[r]! + p1);
        }
    }
  }

  /** The [cpu, memory] fast path (same integer arithmetic as the general one). */
  private scoreFast(nodeInfo: NodeInfo, podRequests: number[]): number {
    const requested = this.useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
    const alloc = nodeInfo.allocatable;
    return this.combine(alloc.milliCPU, alloc.memory, requested.milliCPU + podRequests[0]!, requested.memory + podRequests[1]!);
  }

  /** Score from allocatable (a0 cpu, a1 memory) and requested-with-the-pod (r0, r1). */
  private combine(a0: number, a1: number, r0: number, r1: number): number {
    const q0 = a0 === 0 ? 0 : r0;
    const q1 = a1 === 0 ? 0 : r1;
    const w0 = this.w0;
    const w1 = this.w1;
    switch (this.fast) {
      case 'least': {
        let score = 0;
        let ws = 0;
        if (a0 !== 0) {
          score += (q0 > a0 ? 0 : Math.trunc(((a0 - q0) * MAX_NODE_SCORE) / a0)) * w0;
          ws += w0;
        }
        if (a1 !== 0) {
          score += (q1 > a1 ? 0 : Math.trunc(((a1 - q1) * MAX_NODE_SCORE) / a1)) * w1;
          ws += w1;
        }
        return ws === 0 ? 0 : Math.trunc(score / ws);
      }
      case 'most': {
        let score = 0;
        let ws = 0;
        if (a0 !== 0) {
          score += Math.trunc((Math.min(q0, a0) * MAX_NODE_SCORE) / a0) * w0;
          ws += w0;
        }
        if (a1 !== 0) {
          score += Math.trunc((Math.min(q1, a1) * MAX_NODE_SCORE) / a1) * w1;
          ws += w1;
        }
        return ws === 0 ? 0 : Math.trunc(score / ws);
      }
      default: {
        if (a0 === 0 || a1 === 0) {
          // fewer than two fractions: std 0
          return MAX_NODE_SCORE;
        }
        let f0 = q0 / a0;
        let f1 = q1 / a1;
        if (f0 > 1) f0 = 1;
        if (f1 > 1) f1 = 1;
        return Math.trunc((1 - Math.abs((f0 - f1) / 2)) * MAX_NODE_SCORE);
      }
    }
  }

  /** The pod's request per configured resource (cpu in millicores). */
  podRequests(pod: Pod): number[] {
    const r = computePodRequests(pod, !this.useRequested);
    return this.resources.map((s) => get(r, s.name));
  }

  /** Score of a node for a pod with the given per-resource requests. */
  score(nodeInfo: NodeInfo, podRequests: number[]): number {
    if (this.fast !== null) return this.scoreFast(nodeInfo, podRequests);
    const requested = this.useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
    const alloc = nodeInfo.allocatable;
    for (let i = 0; i < this.kinds.length; i++) {
      const pr = podRequests[i]!;
      let a = 0;
      let q = 0;
      switch (this.kinds[i]) {
        case CPU:
          a = alloc.milliCPU;
          q = requested.milliCPU + pr;
          break;
        case MEMORY:
          a = alloc.memory;
          q = requested.memory + pr;
          break;
        case EPHEMERAL:
          a = alloc.ephemeralStorage;
          q = nodeInfo.requested.ephemeralStorage + pr;
          break;
        default: {
          const name = this.resources[i]!.name;
          if (!(pr === 0 && isScalarResourceName(name)) && alloc.scalar?.has(name)) {
            a = alloc.getScalar(name);
            q = nodeInfo.requested.getScalar(name) + pr;
          }
        }
      }
      this.alloc[i] = a;
      this.req[i] = a === 0 ? 0 : q;
    }
    return this.scorer(this.req, this.alloc);
  }
}

function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  if (requested > capacity) requested = capacity;
  return Math.trunc((requested * MAX_NODE_SCORE) / capacity);
}

function weighted(resources: ResourceSpec[], f: (req: number, cap: number) => number): Scorer {
  return (requested, allocatable) => {
    let score = 0;
    let wsum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const w = resources[i]!.weight ?? 1;
      score += f(requested[i]!, allocatable[i]!) * w;
      wsum += w;
    }
    return wsum === 0 ? 0 : Math.trunc(score / wsum);
  };
}

/** Favors nodes with more free capacity: Σ w·(cap−req)·100/cap / Σ w. */
export const leastAllocatedScorer = (resources: ResourceSpec[]): Scorer => weighted(resources, leastRequestedScore);

/** Favors fuller nodes (bin packing): Σ w·req·100/cap / Σ w. */
export const mostAllocatedScorer = (resources: ResourceSpec[]): Scorer => weighted(resources, mostRequestedScore);

/** Max score of a RequestedToCapacityRatio shape point (upstream MaxCustomPriorityScore). */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;

/**
 * Scores by a user-given piecewise-linear shape of utilization (0–100) → score
 * (0–10, scaled to 0–100); resources scoring 0 do not count in the weighted mean,
 * which is rounded.
 */
export function requestedToCapacityRatioScorer(resources: ResourceSpec[], shape: FunctionShapePoint[]): Scorer {
  const scaled = shape.map((p) => ({ utilization: p.utilization, score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE) }));
  const raw = buildBrokenLinearFunction(scaled);
  const resourceScore = (requested: number, capacity: number) => (capacity === 0 || requested > capacity ? raw(100) : raw(Math.trunc((requested * 100) / capacity)));
  return (requested, allocatable) => {
    let score = 0;
    let wsum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const w = resources[i]!.weight ?? 1;
      const s = resourceScore(requested[i]!, allocatable[i]!);
      if (s > 0) {
        score += s * w;
        wsum += w;
      }
    }
    return wsum === 0 ? 0 : Math.round(score / wsum);
  };
}

/**
 * Favors nodes whose resource fractions are close: (1 − std of fractions) · 100,
 * fractions capped at 1; with two resources std = |f1 − f2| / 2.
 */
export function balancedResourceScorer(requested: number[], allocatable: number[]): number {
  let n = 0;
  let total = 0;
  let f0 = 0;
  let f1 = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    let f = requested[i]! / allocatable[i]!;
    if (f > 1) f = 1;
    total += f;
    if (n === 0) f0 = f;
    else if (n === 1) f1 = f;
    n++;
  }
  let std = 0;
  if (n === 2) std = Math.abs((f0 - f1) / 2);
  else if (n > 2) {
    const mean = total / n;
    let sum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      let f = requested[i]! / allocatable[i]!;
      if (f > 1) f = 1;
      sum += (f - mean) * (f - mean);
    }
    std = Math.sqrt(sum / n);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}
