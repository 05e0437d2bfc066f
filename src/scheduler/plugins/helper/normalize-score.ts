/**
 * Score helpers shared by plugins.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/helper/normalize_score.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/plugins/helper/shape_score.go
 */

/**
 * Scales scores in place to [0, maxPriority] by the highest score (integer division,
 * as upstream); with `reverse`, maxPriority − scaled. All-zero scores become 0, or
 * maxPriority when reversed.
 */
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: number[]): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(maxPriority);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    let s = Math.trunc((maxPriority * scores[i]!) / max);
    if (reverse) s = maxPriority - s;
    scores[i] = s;
  }
}

/** A point of a piecewise-linear function: utilization (0–100) → score. */
export interface FunctionShapePoint {
  utilization: number;
  score: number;
}

/**
 * A piecewise-linear function through `shape` (sorted by utilization), constant
 * before the first and after the last point, with integer arithmetic as upstream.
 */
export function buildBrokenLinearFunction(shape: FunctionShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      if (p <= shape[i]!.utilization) {
        if (i === 0) return shape[0]!.score;
        const a = shape[i - 1]!;
        const b = shape[i]!;
        return a.score + Math.trunc(((b.score - a.score) * (p - a.utilization)) / (b.utilization - a.utilization));
      }
    }
    return shape[shape.length - 1]!.score;
  };
}
