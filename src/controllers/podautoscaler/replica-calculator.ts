/**
 * Upstream's ReplicaCalculator for resource metrics: the replica count that brings the
 * pods' mean usage to the target, as a percentage of their requests (Utilization) or as a
 * raw value per pod (AverageValue). Pods are grouped first: deleted and failed pods are
 * ignored; pending pods, and for CPU pods not yet ready or still within their CPU
 * initialization period (5 min) whose sample predates readiness, count as unready; pods
 * without a sample are missing. Within the tolerance (0.1) nothing changes; otherwise
 * the ratio is recomputed conservatively — missing pods as using 100 % of their request
 * when scaling down and 0 when scaling up, unready pods as 0 when scaling up — and a
 * recomputed ratio that crosses 1 or falls within the tolerance keeps the current count.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/replica_calculator.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/metrics/utilization.go
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { milliValue, parseQuantity } from '../../apimachinery/quantity.js';
import { DEFAULT_HPA_CONFIG, type HPAConfig } from './config.js';

/** One pod's sample: milli-units, its time and window (ms). */
export interface PodMetric {
  value: number;
  timestamp: number;
  window: number;
}

/** The calculator's settings: tolerance, CPU initialization period, initial readiness delay. */
export type CalculatorConfig = Pick<HPAConfig, 'tolerance' | 'cpuInitializationPeriodMs' | 'initialReadinessDelayMs'>;

export interface ReplicaResult {
  replicas: number;
  /** mean utilization in percent of request (Utilization targets) */
  utilization?: number;
  /** mean usage per pod, milli-units */
  rawAverage: number;
}

/** Upstream groupPods: ready count and the unready, missing and ignored pods' names (`resource` `cpu` applies the CPU readiness rules). */
export function groupPods(pods: Pod[], metrics: Map<string, PodMetric>, resource: string, now: number, cfg: CalculatorConfig) {
  let readyCount = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const cond = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
      const start = pod.status?.startTime ? Date.parse(pod.status.startTime) : undefined;
      let isUnready: boolean;
      if (!cond || start === undefined) isUnready = true;
      else {
        const transition = Date.parse(cond.lastTransitionTime ?? '') || 0;
        if (start + cfg.cpuInitializationPeriodMs > now) isUnready = cond.status === 'False' || metric.timestamp < transition + metric.window;
        else isUnready = cond.status === 'False' && start + cfg.initialReadinessDelayMs > transition;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    readyCount++;
  }
  return { readyCount, unready, missing, ignored };
}

/**
 * Sum of the containers' requests of `resource` per pod (only `container`'s when given), milli-units.
 * @throws Error `missing request for cpu in container <c> of Pod <p>`
 */
function podRequests(pods: Pod[], resource: string, container: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of pod.spec?.containers ?? []) {
      if (container !== '' && c.name !== container) continue;
      const q = c.resources?.requests?.[resource];
      if (q === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
      sum += milliValue(parseQuantity(String(q)));
    }
    out.set(pod.metadata?.name ?? '', sum);
  }
  return out;
}

/** Upstream GetResourceUtilizationRatio. @throws Error `no metrics returned matched known pods` */
function utilizationRatio(metrics: Map<string, PodMetric>, requests: Map<string, number>, target: number): { ratio: number; utilization: number; raw: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let n = 0;
  for (const [pod, m] of metrics) {
    const r = requests.get(pod);
    if (r === undefined) continue;
    metricsTotal += m.value;
    requestsTotal += r;
    n++;
  }
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / target, utilization, raw: Math.trunc(metricsTotal / n) };
}

/**
 * Upstream GetResourceReplicas (`targetUtilization` in percent) and GetRawResourceReplicas
 * (`targetAverage` in milli-units per pod); with `container`, a ContainerResource metric
 * (the requests of that container only).
 * @throws Error with upstream's texts (no pods, missing requests, no metrics)
 */
export function resourceReplicas(
  current: number,
  target: { utilization?: number; averageMilli?: number },
  resource: string,
  pods: Pod[],
  metricsIn: Map<string, PodMetric>,
  now: number,
  cfg: CalculatorConfig = DEFAULT_HPA_CONFIG,
  container = '',
): ReplicaResult {
  const tolerance = cfg.tolerance;
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics = new Map(metricsIn);
  const { readyCount, unready, missing, ignored } = groupPods(pods, metrics, resource, now, cfg);
  for (const p of [...ignored, ...unready]) metrics.delete(p);
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const utilizationTarget = target.utilization;
  let requests = new Map<string, number>();
  const ratioOf = (m: Map<string, PodMetric>): { ratio: number; utilization?: number; raw: number } => {
    if (utilizationTarget !== undefined) return utilizationRatio(m, requests, utilizationTarget);
    let total = 0;
    for (const v of m.values()) total += v.value;
    const raw = total / m.size;
    return { ratio: raw / target.averageMilli!, raw: Math.trunc(raw) };
  };
  if (utilizationTarget !== undefined) requests = podRequests(pods, resource, container);
  const first = ratioOf(metrics);
  const scaleUpWithUnready = unready.size > 0 && first.ratio > 1;
  if (!scaleUpWithUnready && missing.size === 0) {
    if (Math.abs(1 - first.ratio) <= tolerance) return { replicas: current, utilization: first.utilization, rawAverage: first.raw };
    // upstream: the ready pods times the ratio (average-value targets: the pods with samples)
    const base = utilizationTarget !== undefined ? readyCount : metrics.size;
    return { replicas: Math.ceil(first.ratio * base), utilization: first.utilization, rawAverage: first.raw };
  }
  if (missing.size > 0) {
    for (const p of missing) {
      const fill = first.ratio < 1 ? (utilizationTarget !== undefined ? (requests.get(p) ?? 0) : target.averageMilli!) : 0;
      metrics.set(p, { value: fill, timestamp: now, window: 0 });
    }
  }
  if (scaleUpWithUnready) for (const p of unready) metrics.set(p, { value: 0, timestamp: now, window: 0 });
  const next = ratioOf(metrics);
  if (Math.abs(1 - next.ratio) <= tolerance || (first.ratio < 1 && next.ratio > 1) || (first.ratio > 1 && next.ratio < 1)) {
    return { replicas: current, utilization: first.utilization, rawAverage: first.raw };
  }
  const replicas = Math.ceil(next.ratio * metrics.size);
  if ((next.ratio < 1 && replicas > current) || (next.ratio > 1 && replicas < current)) return { replicas: current, utilization: first.utilization, rawAverage: first.raw };
  return { replicas, utilization: first.utilization, rawAverage: first.raw };
}
