/**
 * The horizontal-pod-autoscaler's settings, kube-controller-manager's
 * `--horizontal-pod-autoscaler-*` flags (HPAControllerConfiguration), with upstream's defaults.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/config/v1alpha1/defaults.go
 */

/** HPAControllerConfiguration; durations in ms. */
export interface HPAConfig {
  /** `--horizontal-pod-autoscaler-sync-period` (15 s): how often each HPA is reconciled */
  syncPeriodMs: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization` (5 min): scale-down window of HPAs without one of their own */
  downscaleStabilizationMs: number;
  /** `--horizontal-pod-autoscaler-tolerance` (0.1): the ratio distance from 1.0 within which nothing changes */
  tolerance: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period` (5 min): after a pod starts, CPU samples count only once taken after readiness */
  cpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay` (30 s): a pod not ready this long after start is taken as never ready yet */
  initialReadinessDelayMs: number;
}

/** Upstream's defaults. */
export const DEFAULT_HPA_CONFIG: Readonly<HPAConfig> = Object.freeze({
  syncPeriodMs: 15_000,
  downscaleStabilizationMs: 5 * 60_000,
  tolerance: 0.1,
  cpuInitializationPeriodMs: 5 * 60_000,
  initialReadinessDelayMs: 30_000,
});
