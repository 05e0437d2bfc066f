/**
 * kube-controller-manager's `--horizontal-pod-autoscaler-*` flags → the HPA controller's
 * settings. A malformed value is refused with pflag's wording:
 * `invalid argument "x" for "--horizontal-pod-autoscaler-sync-period" flag: time: invalid duration "x"`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/config/v1alpha1/defaults.go
 */
import type { HPAConfig } from '../controllers/podautoscaler/config.js';
import { parseGoDuration } from '../util/duration.js';

/** The commander option values (camel-cased flag names) this reads. */
interface HPAFlagValues {
  horizontalPodAutoscalerSyncPeriod?: unknown;
  horizontalPodAutoscalerDownscaleStabilization?: unknown;
  horizontalPodAutoscalerTolerance?: unknown;
  horizontalPodAutoscalerCpuInitializationPeriod?: unknown;
  horizontalPodAutoscalerInitialReadinessDelay?: unknown;
}

/** @returns the settings, or the error line to print */
export function hpaConfigFrom(o: HPAFlagValues): HPAConfig | string {
  const duration = (flag: string, v: unknown): number | string => {
    try {
      const ms = parseGoDuration(String(v));
      if (ms < 0) return `invalid argument "${String(v)}" for "--${flag}" flag: must not be negative`;
      return ms;
    } catch (e) {
      return `invalid argument "${String(v)}" for "--${flag}" flag: ${(e as Error).message}`;
    }
  };
  const sync = duration('horizontal-pod-autoscaler-sync-period', o.horizontalPodAutoscalerSyncPeriod ?? '15s');
  const down = duration('horizontal-pod-autoscaler-downscale-stabilization', o.horizontalPodAutoscalerDownscaleStabilization ?? '5m0s');
  const cpuInit = duration('horizontal-pod-autoscaler-cpu-initialization-period', o.horizontalPodAutoscalerCpuInitializationPeriod ?? '5m0s');
  const readiness = duration('horizontal-pod-autoscaler-initial-readiness-delay', o.horizontalPodAutoscalerInitialReadinessDelay ?? '30s');
  for (const v of [sync, down, cpuInit, readiness]) if (typeof v === 'string') return v;
  if (sync === 0) return 'invalid argument "0s" for "--horizontal-pod-autoscaler-sync-period" flag: must be positive';
  const tolText = String(o.horizontalPodAutoscalerTolerance ?? '0.1');
  const tolerance = Number(tolText);
  if (tolText.trim() === '' || !Number.isFinite(tolerance) || tolerance < 0) {
    return `invalid argument "${tolText}" for "--horizontal-pod-autoscaler-tolerance" flag: strconv.ParseFloat: parsing "${tolText}": invalid syntax`;
  }
  return {
    syncPeriodMs: sync as number,
    downscaleStabilizationMs: down as number,
    tolerance,
    cpuInitializationPeriodMs: cpuInit as number,
    initialReadinessDelayMs: readiness as number,
  };
}
