/**
 * One metric's replica proposal (upstream computeReplicasForMetric and the
 * computeStatusFor*Metric functions): Resource and ContainerResource metrics from the
 * resource metrics API through the replica calculator, Pods metrics (AverageValue) from
 * the custom metrics API per pod, Object metrics (Value or AverageValue) from the custom
 * metrics API for one object, External metrics (Value or AverageValue) from the external
 * metrics API. Each returns the proposal, the metric's status and its name as used in
 * conditions and events (`cpu resource utilization (percentage of request)`, `pods metric
 * <name>`, `<Kind> metric <name>`, `external metric <name>(<selector>)`), or on failure a
 * Warning event (FailedGet<Type>Metric) and the ScalingActive=False condition.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/horizontal.go
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { MetricSpec, MetricStatus, MetricTarget } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatQuantity, milliValue, newMilliQuantity, parseQuantity } from '../../apimachinery/quantity.js';
import { DEFAULT_HPA_CONFIG } from './config.js';
import { perPodReplicas, usageRatioReplicas } from './object-replicas.js';
import { resourceReplicas } from './replica-calculator.js';
import type { HPA, ReconcileDeps } from './reconcile.js';

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** One metric's proposal, or the condition and error of its failure. */
export type MetricProposal = { replicas: number; status: MetricStatus; name: string } | { condition: Condition; error: Error };

const withKind = (h: HPA): HPA => (h.kind ? h : { ...h, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });
const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const milliOf = (q: unknown): number => milliValue(parseQuantity(String(q)));
const quantity = (m: number): string => formatQuantity(newMilliQuantity(m));

/** metav1.LabelSelector → selector string (matchLabels and matchExpressions). */
export function selectorString(s: LabelSelector | undefined): string {
  if (!s) return '';
  const parts = Object.entries(s.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** Go's `%+v` of a *metav1.LabelSelector (its generated String()), as upstream prints it in the external metric's name. */
export function goLabelSelector(s: LabelSelector | undefined): string {
  if (!s) return 'nil';
  const labels = Object.entries(s.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}: ${v},`)
    .join('');
  const exprs = (s.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** The per-type parts of a proposal; `reason` names the failure's event and condition. */
async function proposal(
  hpa: HPA,
  spec: MetricSpec,
  selector: string,
  current: number,
  statusReplicas: number,
  deps: ReconcileDeps,
  pods: () => Promise<Pod[]>,
): Promise<{ replicas: number; status: MetricStatus; name: string }> {
  const ns = hpa.metadata?.namespace ?? '';
  const cfg = deps.config ?? DEFAULT_HPA_CONFIG;
  const now = deps.now();
  switch (spec.type) {
    case 'Resource':
    case 'ContainerResource': {
      const src = spec.type === 'Resource' ? spec.resource! : spec.containerResource!;
      const container = spec.type === 'ContainerResource' ? spec.containerResource!.container : '';
      const name = src.name;
      const target: MetricTarget = src.target;
      if (target?.averageValue === undefined && target?.averageUtilization === undefined) {
        throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
      }
      const what = target.averageValue !== undefined ? 'usage' : 'utilization';
      let r: ReturnType<typeof resourceReplicas>;
      try {
        let metrics;
        try {
          metrics = await deps.metrics.getResourceMetric(name, ns, selector, container);
        } catch (e) {
          throw new Error(`unable to get metrics for resource ${name}: ${msg(e)}`);
        }
        const averageMilli = target.averageValue !== undefined ? milliOf(target.averageValue) : undefined;
        const utilization = averageMilli === undefined ? target.averageUtilization : undefined;
        r = resourceReplicas(current, { utilization, averageMilli }, name, await pods(), metrics, now, cfg, container);
      } catch (e) {
        throw new Error(`failed to get ${name} ${what}: ${msg(e)}`);
      }
      const cur: Record<string, unknown> = { averageValue: quantity(r.rawAverage) };
      if (what === 'utilization') cur.averageUtilization = r.utilization;
      const kind = spec.type === 'ContainerResource' ? 'container resource' : 'resource';
      const status =
        spec.type === 'Resource'
          ? ({ type: 'Resource', resource: { name, current: cur } } as MetricStatus)
          : ({ type: 'ContainerResource', containerResource: { name, container, current: cur } } as MetricStatus);
      return { replicas: r.replicas, status, name: what === 'utilization' ? `${name} ${kind} utilization (percentage of request)` : `${name} resource` };
    }
    case 'Pods': {
      const src = spec.pods!;
      if (!deps.metrics.getRawMetric) throw new Error(`unable to get metric ${src.metric.name}: no custom metrics API client`);
      let metrics;
      try {
        metrics = await deps.metrics.getRawMetric(src.metric.name, ns, selector, selectorString(src.metric.selector));
      } catch (e) {
        throw new Error(`unable to get metric ${src.metric.name}: ${msg(e)}`);
      }
      const r = resourceReplicas(current, { averageMilli: milliOf(src.target.averageValue ?? 0) }, '', await pods(), metrics, now, cfg);
      return {
        replicas: r.replicas,
        status: { type: 'Pods', pods: { metric: src.metric, current: { averageValue: quantity(r.rawAverage) } } } as MetricStatus,
        name: `pods metric ${src.metric.name}`,
      };
    }
    case 'Object': {
      const src = spec.object!;
      const ref = src.describedObject;
      const get = async (): Promise<number> => {
        if (!deps.metrics.getObjectMetric) throw new Error('no custom metrics API client');
        return (await deps.metrics.getObjectMetric(src.metric.name, ns, ref, selectorString(src.metric.selector))).value;
      };
      const wrap = (e: unknown): Error => new Error(`unable to get metric ${src.metric.name}: ${ref.kind} on ${ns} ${ref.name}/${msg(e)}`);
      const status = (current: Record<string, string>): MetricStatus => ({ type: 'Object', object: { describedObject: ref, metric: src.metric, current } }) as MetricStatus;
      const name = `${ref.kind} metric ${src.metric.name}`;
      if (src.target.type === 'Value' && src.target.value !== undefined) {
        const value = await get().catch((e: unknown) => Promise.reject(wrap(e)));
        const podList = await pods();
        const replicas = usageRatioReplicas(current, value / milliOf(src.target.value), cfg.tolerance, () => podList);
        return { replicas, status: status({ value: quantity(value) }), name };
      }
      if (src.target.type === 'AverageValue' && src.target.averageValue !== undefined) {
        const value = await get().catch((e: unknown) => Promise.reject(wrap(e)));
        const r = perPodReplicas(statusReplicas, value, milliOf(src.target.averageValue), cfg.tolerance);
        return { replicas: r.replicas, status: status({ averageValue: quantity(r.averageMilli) }), name };
      }
      throw new Error('invalid object metric source: neither a value target nor an average value target was set');
    }
    case 'External': {
      const src = spec.external!;
      const get = async (): Promise<number> => {
        try {
          if (!deps.metrics.getExternalMetric) throw new Error('no external metrics API client');
          const r = await deps.metrics.getExternalMetric(src.metric.name, ns, selectorString(src.metric.selector));
          return r.values.reduce((a, b) => a + b, 0);
        } catch (e) {
          throw new Error(`unable to get external metric ${ns}/${src.metric.name}/${goLabelSelector(src.metric.selector)}: ${msg(e)}`);
        }
      };
      const status = (current: Record<string, string>): MetricStatus => ({ type: 'External', external: { metric: src.metric, current } }) as MetricStatus;
      const name = `external metric ${src.metric.name}(${goLabelSelector(src.metric.selector)})`;
      if (src.target.type === 'Value' && src.target.value !== undefined) {
        const value = await get();
        const podList = await pods();
        const replicas = usageRatioReplicas(current, value / milliOf(src.target.value), cfg.tolerance, () => podList);
        return { replicas, status: status({ value: quantity(value) }), name };
      }
      if (src.target.type === 'AverageValue' && src.target.averageValue !== undefined) {
        const value = await get();
        const r = perPodReplicas(statusReplicas, value, milliOf(src.target.averageValue), cfg.tolerance);
        return { replicas: r.replicas, status: status({ averageValue: quantity(r.averageMilli) }), name };
      }
      throw new Error('invalid external metric source: neither a value target nor an average value target was set');
    }
    default:
      throw new Error(`unknown metric source type "${String(spec.type)}"`);
  }
}

/** The event reason and the wrapping of a failed metric, per type (upstream computeReplicasForMetric). */
function failureOf(spec: MetricSpec): { reason: string; wrap: (inner: string) => string } {
  switch (spec.type) {
    case 'Resource':
      return { reason: 'FailedGetResourceMetric', wrap: (m) => `failed to get ${spec.resource?.name ?? ''} resource metric value: ${m}` };
    case 'ContainerResource':
      return { reason: 'FailedGetContainerResourceMetric', wrap: (m) => `failed to get ${spec.containerResource?.container ?? ''} container metric value: ${m}` };
    case 'Pods':
      return { reason: 'FailedGetPodsMetric', wrap: (m) => `failed to get pods metric value: ${m}` };
    case 'Object':
      return { reason: 'FailedGetObjectMetric', wrap: (m) => `failed to get object metric value: ${m}` };
    case 'External':
      return { reason: 'FailedGetExternalMetric', wrap: (m) => `failed to get ${spec.external?.metric.name ?? ''} external metric value: ${m}` };
    default:
      return { reason: 'InvalidMetricSourceType', wrap: (m) => m };
  }
}

/**
 * One metric's proposal; never throws.
 * @param statusReplicas the target's `status.replicas` (AverageValue targets of Object and External metrics)
 */
export async function computeForMetric(hpa: HPA, spec: MetricSpec, selector: string, current: number, statusReplicas: number, deps: ReconcileDeps): Promise<MetricProposal> {
  const ns = hpa.metadata?.namespace ?? '';
  let podList: Pod[] | undefined;
  const pods = async (): Promise<Pod[]> => {
    if (!deps.listPods) throw new Error('unable to get pods while calculating replica count');
    podList ??= await deps.listPods(ns, selector);
    return podList;
  };
  try {
    return await proposal(hpa, spec, selector, current, statusReplicas, deps, pods);
  } catch (e) {
    const inner = msg(e);
    const f = failureOf(spec);
    deps.recorder.event(withKind(hpa), 'Warning', f.reason, inner);
    return {
      condition: { type: 'ScalingActive', status: 'False', reason: f.reason, message: `the HPA was unable to compute the replica count: ${inner}` },
      error: new Error(f.wrap(inner)),
    };
  }
}
