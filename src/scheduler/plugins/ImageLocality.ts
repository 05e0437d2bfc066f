/**
 * ImageLocality: favors nodes that already have the pod's images (node.status.images),
 * each image's size scaled by the fraction of nodes having it (to avoid piling pods on
 * the few nodes with a rare image), the sum clamped to [23 MiB, 1000 MiB × containers]
 * and mapped to 0–100. Image names without a tag get `:latest`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/imagelocality/image_locality.go
 */
import type { NodeColumns } from '../framework/node-columns.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../framework/cycle-state.js';
import type { Handle, PreScorePlugin, ScorePlugin } from '../framework/interface.js';
import type { NodeInfo } from '../framework/node-info.js';
import { Code, Status } from '../framework/status.js';
import { MAX_NODE_SCORE } from '../framework/types.js';

export const Name = 'ImageLocality';

const preScoreStateKey = 'PreScore' + Name;
const MB = 1024 * 1024;
/** Below this sum of image sizes a node scores 0 (upstream minThreshold). */
export const MIN_THRESHOLD = 23 * MB;
/** Per-container cap of the sum (upstream maxContainerThreshold). */
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** `name` with `:latest` appended when it has no tag (upstream normalizedImageName). */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

class PreScoreState implements StateData {
  constructor(
    readonly images: string[],
    readonly numContainers: number,
    readonly totalNumNodes: number,
  ) {}
  clone(): StateData {
    return this;
  }
}

/** Score from the sum of scaled image sizes (upstream calculatePriority). */
export function calculatePriority(sumScores: number, numContainers: number): number {
  const max = MAX_CONTAINER_THRESHOLD * numContainers;
  let s = sumScores;
  if (s < MIN_THRESHOLD) s = MIN_THRESHOLD;
  else if (s > max) s = max;
  return Math.trunc((MAX_NODE_SCORE * (s - MIN_THRESHOLD)) / (max - MIN_THRESHOLD));
}

export class ImageLocality implements PreScorePlugin, ScorePlugin {
  readonly name = Name;

  constructor(private readonly handle: Handle) {}

  /** Precomputes the normalized image names; Skip when no node reports images. */
  preScore(state: CycleState, pod: Pod, _nodes: NodeInfo[]): Status | null {
    const snap = this.handle.snapshotSharedLister();
    const anyImages = snap.cols.withImages > 0;
    const images: string[] = [];
    for (const c of pod.spec?.initContainers ?? []) images.push(normalizedImageName(c.image ?? ''));
    for (const c of pod.spec?.containers ?? []) images.push(normalizedImageName(c.image ?? ''));
    const total = snap.numNodes();
    state.write(preScoreStateKey, new PreScoreState(images, images.length, total));
    // every node scores 0 when none has images: the plugin's score would not change the ranking
    return anyImages ? null : new Status(Code.Skip);
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    let s = state.get<PreScoreState>(preScoreStateKey);
    if (!s) {
      this.preScore(state, pod, [nodeInfo]);
      s = state.get<PreScoreState>(preScoreStateKey)!;
    }
    const imgs = nodeInfo.imageStates;
    if (imgs.size === 0) return 0;
    let sum = 0;
    for (const name of s.images) {
      const st = imgs.get(name);
      if (st) sum += Math.trunc(st.size * (st.numNodes / s.totalNumNodes));
    }
    return calculatePriority(sum, s.numContainers);
  }

  scoreAll(state: CycleState, pod: Pod, nodes: NodeInfo[], _idx: Int32Array, _cols: NodeColumns, scores: number[]): Status | null {
    for (let i = 0; i < nodes.length; i++) scores[i] = this.score(state, pod, nodes[i]!) as number;
    return null;
  }

  scoreExtensions(): null {
    return null;
  }
}

export function New(_args: unknown, handle: Handle): ImageLocality {
  return new ImageLocality(handle);
}
