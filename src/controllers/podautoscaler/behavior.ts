/**
 * Upstream's normalization of a proposed replica count for HPAs with `spec.behavior`
 * (autoscaling/v2 HorizontalPodAutoscalerBehavior):
 *
 * 1. stabilization — the proposal is held between the lowest recommendation of the
 *    scale-up window and the highest of the scale-down window (`stabilizationWindowSeconds`;
 *    a scale-down window left unset takes `--horizontal-pod-autoscaler-downscale-stabilization`):
 *    AbleToScale ScaleUpStabilized / ScaleDownStabilized, else ReadyForNewScale;
 * 2. rate — each policy allows, over its `periodSeconds`, `value` Pods or `value` Percent of
 *    the replicas at the period's start (the scale events of the period undone); `selectPolicy`
 *    Max takes the policy allowing the largest change, Min the smallest, Disabled none:
 *    ScalingLimited ScaleUpLimit / ScaleDownLimit, else TooManyReplicas / TooFewReplicas
 *    at [minReplicas, maxReplicas], else DesiredWithinRange.
 *
 * Scale events are recorded after each rescale (see {@link recordScaleEvent}) and kept
 * for the longest policy period.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/horizontal.go (normalizeDesiredReplicasWithBehaviors, stabilizeRecommendationWithBehaviors, convertDesiredReplicasWithBehaviorRate, calculateScaleUpLimitWithScalingRules, calculateScaleDownLimitWithBehaviors, storeScaleEvent)
 */
import type { HorizontalPodAutoscalerBehavior, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import type { NormalizedCondition, Recommendation } from './normalize.js';

/** A past rescale: when (ms since epoch) and by how many replicas (always positive). */
export interface ScaleEvent {
  at: number;
  change: number;
}

/** What the controller remembers of one HPA between reconciles. */
export interface BehaviorHistory {
  recommendations: Recommendation[];
  scaleUpEvents: ScaleEvent[];
  scaleDownEvents: ScaleEvent[];
}

/** Upstream's default rules for a direction left out of `spec.behavior` (API defaulting fills them too). */
const DEFAULT_SCALE_UP: HPAScalingRules = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
const DEFAULT_SCALE_DOWN: HPAScalingRules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** Sum of the changes of the events within the last `periodSeconds` (upstream getReplicasChangePerPeriod). */
function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  let n = 0;
  for (const e of events) if (e.at > cutoff) n += e.change;
  return n;
}

/** The highest replica count the scale-up rules allow now (upstream calculateScaleUpLimitWithScalingRules). */
export function scaleUpLimit(current: number, history: BehaviorHistory, rules: HPAScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result: number | undefined;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(p.periodSeconds, history.scaleUpEvents, now) + changeInPeriod(p.periodSeconds, history.scaleDownEvents, now);
    // a Percent proposal is rounded up, or a small target could never grow
    const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    result = result === undefined ? proposed : pick(result, proposed);
  }
  return result ?? 0;
}

/** The lowest replica count the scale-down rules allow now (upstream calculateScaleDownLimitWithBehaviors). */
export function scaleDownLimit(current: number, history: BehaviorHistory, rules: HPAScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // for scaling down the smallest change (Min) is the highest count
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result: number | undefined;
  for (const p of rules.policies ?? []) {
    const start = current - changeInPeriod(p.periodSeconds, history.scaleUpEvents, now) + changeInPeriod(p.periodSeconds, history.scaleDownEvents, now);
    const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = result === undefined ? proposed : pick(result, proposed);
  }
  return result ?? 2 ** 31 - 1;
}

/**
 * Normalizes `proposal` with the HPA's behavior; records the proposal in `history`.
 * @param downscaleStabilizationMs the flag's window, for a scale-down rule without its own
 * @returns the replica count and the AbleToScale / ScalingLimited conditions to set
 */
export function normalizeWithBehaviors(
  history: BehaviorHistory,
  behavior: HorizontalPodAutoscalerBehavior,
  proposal: number,
  current: number,
  min: number,
  max: number,
  now: number,
  downscaleStabilizationMs: number,
): { replicas: number; conditions: NormalizedCondition[] } {
  const up = { ...DEFAULT_SCALE_UP, ...behavior.scaleUp };
  const down = { ...DEFAULT_SCALE_DOWN, ...behavior.scaleDown };
  const upWindowMs = (up.stabilizationWindowSeconds ?? 0) * 1000;
  const downWindowMs = down.stabilizationWindowSeconds !== undefined ? down.stabilizationWindowSeconds * 1000 : Math.trunc(downscaleStabilizationMs / 1000) * 1000;

  // 1. stabilization (upstream stabilizeRecommendationWithBehaviors)
  let upRecommendation = proposal;
  let downRecommendation = proposal;
  for (const r of history.recommendations) {
    if (r.at > now - upWindowMs) upRecommendation = Math.min(upRecommendation, r.replicas);
    if (r.at > now - downWindowMs) downRecommendation = Math.max(downRecommendation, r.replicas);
  }
  const keepMs = Math.max(upWindowMs, downWindowMs);
  history.recommendations = history.recommendations.filter((r) => r.at >= now - keepMs);
  history.recommendations.push({ at: now, replicas: proposal });
  let stabilized = Math.min(Math.max(current, upRecommendation), downRecommendation);
  const conditions: NormalizedCondition[] = [];
  if (stabilized !== proposal) {
    conditions.push(
      proposal >= current
        ? {
            type: 'AbleToScale',
            status: 'True',
            reason: 'ScaleUpStabilized',
            message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
          }
        : {
            type: 'AbleToScale',
            status: 'True',
            reason: 'ScaleDownStabilized',
            message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
          },
    );
  } else {
    conditions.push({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' });
  }

  // 2. rate (upstream convertDesiredReplicasWithBehaviorRate)
  let replicas = stabilized;
  let reason = 'DesiredWithinRange';
  let message = 'the desired count is within the acceptable range';
  if (stabilized > current) {
    const limit = Math.max(scaleUpLimit(current, history, up, now), current);
    let allowed = max;
    let r = 'TooManyReplicas';
    let m = 'the desired replica count is more than the maximum replica count';
    if (allowed > limit) {
      allowed = limit;
      r = 'ScaleUpLimit';
      m = 'the desired replica count is increasing faster than the maximum scale rate';
    }
    if (stabilized > allowed) [replicas, reason, message] = [allowed, r, m];
  } else if (stabilized < current) {
    const limit = Math.min(scaleDownLimit(current, history, down, now), current);
    let allowed = min;
    let r = 'TooFewReplicas';
    let m = 'the desired replica count is less than the minimum replica count';
    if (allowed < limit) {
      allowed = limit;
      r = 'ScaleDownLimit';
      m = 'the desired replica count is decreasing faster than the maximum scale rate';
    }
    if (stabilized < allowed) [replicas, reason, message] = [allowed, r, m];
  }
  conditions.push({ type: 'ScalingLimited', status: replicas === stabilized ? 'False' : 'True', reason, message });
  stabilized = replicas;
  return { replicas: stabilized, conditions };
}

/**
 * Records a rescale from `previous` to `next` replicas (upstream storeScaleEvent), dropping
 * the events older than the direction's longest policy period.
 */
export function recordScaleEvent(history: BehaviorHistory, behavior: HorizontalPodAutoscalerBehavior, previous: number, next: number, now: number): void {
  if (next === previous) return;
  const upward = next > previous;
  const rules = upward ? { ...DEFAULT_SCALE_UP, ...behavior.scaleUp } : { ...DEFAULT_SCALE_DOWN, ...behavior.scaleDown };
  const longest = Math.max(0, ...(rules.policies ?? []).map((p) => p.periodSeconds));
  const cutoff = now - longest * 1000;
  const key = upward ? 'scaleUpEvents' : 'scaleDownEvents';
  history[key] = history[key].filter((e) => e.at >= cutoff);
  history[key].push({ at: now, change: Math.abs(next - previous) });
}
