/**
 * Upstream's normalization of a proposed replica count for HPAs without `spec.behavior`:
 * scale-down is stabilized over the last 5 minutes (the highest recommendation in the
 * window wins: AbleToScale ScaleDownStabilized, else ReadyForNewScale), then the count is
 * limited to a scale-up of max(2 × current, 4) (ScalingLimited ScaleUpLimit) and to
 * [minReplicas, maxReplicas] (TooFewReplicas / TooManyReplicas, else DesiredWithinRange).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/horizontal.go (normalizeDesiredReplicas, stabilizeRecommendation, convertDesiredReplicasWithRules)
 */

/** A past recommendation: when (ms since epoch) and how many replicas. */
export interface Recommendation {
  at: number;
  replicas: number;
}

import { DEFAULT_HPA_CONFIG } from './config.js';

const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

export interface NormalizedCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/**
 * @param history this HPA's past recommendations (not modified)
 * @returns the replica count, the recommendations to keep, and the AbleToScale / ScalingLimited conditions to set
 */
export function normalizeDesiredReplicas(
  history: readonly Recommendation[],
  proposal: number,
  current: number,
  min: number,
  max: number,
  now: number,
  downscaleStabilizationMs: number = DEFAULT_HPA_CONFIG.downscaleStabilizationMs,
): { replicas: number; recommendations: Recommendation[]; conditions: NormalizedCondition[] } {
  const cutoff = now - downscaleStabilizationMs;
  const recommendations = history.filter((r) => r.at > cutoff);
  let stabilized = proposal;
  for (const r of recommendations) if (r.replicas > stabilized) stabilized = r.replicas;
  recommendations.push({ at: now, replicas: proposal });
  const conditions: NormalizedCondition[] = [];
  if (stabilized !== proposal) {
    conditions.push({
      type: 'AbleToScale',
      status: 'True',
      reason: 'ScaleDownStabilized',
      message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
    });
  } else {
    conditions.push({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' });
  }
  // upstream convertDesiredReplicasWithRules
  const scaleUpLimit = Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM);
  let maxAllowed = max;
  let reason = 'TooManyReplicas';
  let message = 'the desired replica count is more than the maximum replica count';
  if (max > scaleUpLimit) {
    maxAllowed = scaleUpLimit;
    reason = 'ScaleUpLimit';
    message = 'the desired replica count is increasing faster than the maximum scale rate';
  }
  let replicas = stabilized;
  if (stabilized < min) {
    replicas = min;
    reason = 'TooFewReplicas';
    message = 'the desired replica count is less than the minimum replica count';
  } else if (stabilized > maxAllowed) {
    replicas = maxAllowed;
  } else {
    reason = 'DesiredWithinRange';
    message = 'the desired count is within the acceptable range';
  }
  conditions.push({ type: 'ScalingLimited', status: replicas === stabilized ? 'False' : 'True', reason, message });
  return { replicas, recommendations, conditions };
}
