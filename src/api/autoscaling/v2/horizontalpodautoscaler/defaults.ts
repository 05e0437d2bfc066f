/**
 * autoscaling/v2 HorizontalPodAutoscaler defaults: minReplicas 1, a cpu Utilization
 * 80 % metric when no metric is given, and, when spec.behavior is set, every unset
 * scaling rule field filled from upstream's default rules (scale up: no stabilization
 * window, policies 4 Pods / 15 s and 100 Percent / 15 s, selectPolicy Max; scale down:
 * 100 Percent / 15 s, selectPolicy Max, and NO stabilization window: upstream leaves it
 * unset so that the controller's --horizontal-pod-autoscaler-downscale-stabilization, 300 s
 * by default, applies).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/autoscaling/v2/defaults.go
 */
import type { HorizontalPodAutoscaler, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import type { O } from '../../../core/v1/shared/types.js';

/** Upstream autoscaling.DefaultCPUUtilization (percent). */
const DEFAULT_CPU_UTILIZATION = 80;

type Rules = { -readonly [K in keyof HPAScalingRules]: HPAScalingRules[K] };

const scaleUpDefaults = (): Required<Pick<Rules, 'stabilizationWindowSeconds' | 'selectPolicy' | 'policies'>> => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});

const scaleDownDefaults = (): Pick<Rules, 'stabilizationWindowSeconds' | 'selectPolicy' | 'policies'> => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** Upstream GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: unset fields take the defaults. */
function fillRules(rules: Rules | undefined, defaults: Pick<Rules, 'stabilizationWindowSeconds' | 'selectPolicy' | 'policies'>): Rules {
  if (!rules) return defaults;
  if (defaults.stabilizationWindowSeconds !== undefined) rules.stabilizationWindowSeconds ??= defaults.stabilizationWindowSeconds;
  rules.selectPolicy ??= defaults.selectPolicy;
  rules.policies ??= defaults.policies;
  return rules;
}

/** Upstream SetDefaults_HorizontalPodAutoscaler (mutates). */
export function defaultHorizontalPodAutoscaler(hpa: O<HorizontalPodAutoscaler>): void {
  const spec = ((hpa as { spec?: object }).spec ??= {}) as { -readonly [K in keyof NonNullable<HorizontalPodAutoscaler['spec']>]: NonNullable<HorizontalPodAutoscaler['spec']>[K] };
  spec.minReplicas ??= 1;
  if (!spec.metrics || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  const b = spec.behavior as { scaleUp?: Rules; scaleDown?: Rules } | undefined;
  if (b) {
    b.scaleUp = fillRules(b.scaleUp, scaleUpDefaults());
    b.scaleDown = fillRules(b.scaleDown, scaleDownDefaults());
  }
}
