/**
 * Upstream's replica calculator for metrics that describe something other than each pod:
 * an Object metric (one value of one object, e.g. an Ingress' requests per second) and
 * an External metric (the sum of the values an external metrics API returns).
 *
 * - Value targets: ratio = value / target; within the tolerance nothing changes, else
 *   ceil(ratio × ready pods); at zero current replicas ceil(ratio) (scale from zero).
 * - AverageValue targets: the value is shared by the target's current replicas
 *   (`status.replicas`): ratio = value / (target × replicas); outside the tolerance
 *   ceil(value / target). The status reports ceil(value / replicas).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/replica_calculator.go (GetObjectMetricReplicas, GetObjectPerPodMetricReplicas, GetExternalMetricReplicas, GetExternalPerPodMetricReplicas, getUsageRatioReplicaCount, getReadyPodsCount)
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

/**
 * Pods Running with condition Ready True (upstream getReadyPodsCount).
 * @throws Error `no pods returned by selector while calculating replica count`
 */
export function readyPodCount(pods: readonly Pod[]): number {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  return pods.filter((p) => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

/**
 * Replicas for a Value target (upstream getUsageRatioReplicaCount).
 * @param pods the pods of the target (read only when current ≠ 0 and the ratio is outside the tolerance)
 */
export function usageRatioReplicas(current: number, ratio: number, tolerance: number, pods: () => readonly Pod[]): number {
  if (current === 0) return Math.ceil(ratio);
  if (Math.abs(1 - ratio) <= tolerance) return current;
  return Math.ceil(ratio * readyPodCount(pods()));
}

/** Replicas and the per-pod average for an AverageValue target (milli-units), given the target's `status.replicas`. */
export function perPodReplicas(statusReplicas: number, valueMilli: number, targetAverageMilli: number, tolerance: number): { replicas: number; averageMilli: number } {
  let replicas = statusReplicas;
  const ratio = valueMilli / (targetAverageMilli * statusReplicas);
  if (Math.abs(1 - ratio) > tolerance) replicas = Math.ceil(valueMilli / targetAverageMilli);
  return { replicas, averageMilli: statusReplicas > 0 ? Math.ceil(valueMilli / statusReplicas) : valueMilli };
}
