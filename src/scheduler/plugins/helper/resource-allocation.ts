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

export class ResourceAllocationScorer {
  private readonly req: number[];
  private readonly alloc: number[];
  /** per configured resource: CPU, MEMORY, EPHEMERAL or SCALAR */
  private readonly kinds: number[];

  constructor(
    readonly resources: ResourceSpec[],
    private readonly scorer: Scorer,
    /** use actual requests (BalancedAllocation) instead of non-zero ones */
    private readonly useRequested: boolean,
  ) {
    this.req = new Array(resources.length).fill(0);
    this.alloc = new Array(resources.length).fill(0);
    this.kinds = resources.map((r) => (r.name === 'cpu' ? CPU : r.name === 'memory' ? MEMORY : r.name === 'ephemeral-storage' ? EPHEMERAL : SCALAR));
  }

  /** The pod's request per configured resource (cpu in millicores). */
  podRequests(pod: Pod): number[] {
    const r = computePodRequests(pod, !this.useRequested);
    return this.resources.map((s) => get(r, s.name));
  }

  /** Score of a node for a pod with the given per-resource requests. */
  score(nodeInfo: NodeInfo, podRequests: number[]): number {
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
  const resourceScore = (requested: number, capacity: number) =>
    capacity === 0 || requested > capacity ? raw(100) : raw(Math.trunc((requested * 100) / capacity));
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
  const fractions: number[] = [];
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    let f = requested[i]! / allocatable[i]!;
    if (f > 1) f = 1;
    total += f;
    if (n === 0) f0 = f;
    else if (n === 1) f1 = f;
    fractions.push(f);
    n++;
  }
  let std = 0;
  if (n === 2) std = Math.abs((f0 - f1) / 2);
  else if (n > 2) {
    const mean = total / n;
    let sum = 0;
    for (const f of fractions) sum += (f - mean) * (f - mean);
    std = Math.sqrt(sum / n);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}
