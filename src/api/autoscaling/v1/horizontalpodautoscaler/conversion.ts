/**
 * autoscaling/v1 ↔ autoscaling/v2 HorizontalPodAutoscaler conversion. v1 carries one
 * metric, `targetCPUUtilizationPercentage` (↔ the v2 Resource cpu Utilization metric);
 * what v1 has no field for travels in annotations as upstream's conversion does:
 * `autoscaling.alpha.kubernetes.io/metrics` (the other metrics), `…/behavior`,
 * `…/conditions` and `…/current-metrics`, removed again on the way back to v2.
 *
 * Deviation: the metrics annotations hold the metrics in their autoscaling/v2 JSON form
 * (upstream writes the older v1 MetricSpec shape).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/autoscaling/v1/conversion.go
 */
import type { HorizontalPodAutoscaler as V1 } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler as V2, HorizontalPodAutoscalerBehavior, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { K } from '../../../core/v1/shared/types.js';
import type { Obj } from '../../../resource.js';
import { defaultHorizontalPodAutoscaler } from '../../v2/horizontalpodautoscaler/defaults.js';

export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
const ANNOTATIONS = [METRICS_ANNOTATION, BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, CURRENT_METRICS_ANNOTATION];

type V1HPA = K<V1>;
type V2HPA = K<V2>;
type W<T> = { -readonly [K in keyof T]: T[K] };
const isCPUUtilization = (m: MetricSpec): boolean =>
  m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.type === 'Utilization' && m.resource.target.averageUtilization !== undefined;

function parseAnnotation<T>(a: Record<string, string>, key: string): T | undefined {
  const v = a[key];
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v) as T;
  } catch {
    return undefined;
  }
}

/** A stored (v2) object seen as autoscaling/v1. Returns a new object. */
export function hpaV2ToV1(obj: Obj<V2HPA>): Obj<V1HPA> {
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  const spec = obj.spec;
  const metrics = spec?.metrics ?? [];
  const cpu = metrics.find(isCPUUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (spec?.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  const st = obj.status;
  if (st?.conditions?.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(st.conditions);
  const curCPU = st?.currentMetrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const otherCur = (st?.currentMetrics ?? []).filter((m) => m !== curCPU);
  if (otherCur.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherCur);

  const v1Spec: W<NonNullable<V1HPA['spec']>> = { scaleTargetRef: { ...(spec?.scaleTargetRef ?? { kind: '', name: '' }) }, maxReplicas: spec?.maxReplicas ?? 0 };
  if (spec?.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  if (cpu) v1Spec.targetCPUUtilizationPercentage = cpu.resource!.target.averageUtilization;
  const out: Obj<V1HPA> = {
    ...obj,
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { ...obj.metadata },
    spec: v1Spec,
  } as Obj<V1HPA>;
  if (Object.keys(annotations).length > 0) out.metadata.annotations = annotations;
  if (st) {
    const s: W<NonNullable<V1HPA['status']>> = { currentReplicas: st.currentReplicas ?? 0, desiredReplicas: st.desiredReplicas ?? 0 };
    if (st.observedGeneration !== undefined) s.observedGeneration = st.observedGeneration;
    if (st.lastScaleTime !== undefined) s.lastScaleTime = st.lastScaleTime;
    const u = curCPU?.resource?.current?.averageUtilization;
    if (u !== undefined) s.currentCPUUtilizationPercentage = u;
    (out as { status?: unknown }).status = s;
  }
  return out;
}

/** An autoscaling/v1 object in the stored (v2) form, v2-defaulted. Returns a new object. */
export function hpaV1ToV2(obj: Obj<V1HPA>): Obj<V2HPA> {
  const a = obj.metadata.annotations ?? {};
  const spec = obj.spec;
  const metrics: MetricSpec[] = [];
  if (spec?.targetCPUUtilizationPercentage !== undefined) {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  metrics.push(...(parseAnnotation<MetricSpec[]>(a, METRICS_ANNOTATION) ?? []));
  const v2Spec: W<NonNullable<V2HPA['spec']>> = { scaleTargetRef: { ...(spec?.scaleTargetRef ?? { kind: '', name: '' }) }, maxReplicas: spec?.maxReplicas ?? 0 };
  if (spec?.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  if (metrics.length > 0) v2Spec.metrics = metrics;
  const behavior = parseAnnotation<HorizontalPodAutoscalerBehavior>(a, BEHAVIOR_ANNOTATION);
  if (behavior) v2Spec.behavior = behavior;

  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (!ANNOTATIONS.includes(k)) rest[k] = v;
  const meta = { ...obj.metadata };
  if (Object.keys(rest).length > 0) meta.annotations = rest;
  else delete meta.annotations;
  const out = { ...obj, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: meta, spec: v2Spec } as Obj<V2HPA>;
  const st = obj.status;
  if (st) {
    const s: W<NonNullable<V2HPA['status']>> = { desiredReplicas: st.desiredReplicas ?? 0 };
    if (st.currentReplicas) s.currentReplicas = st.currentReplicas;
    if (st.observedGeneration !== undefined) s.observedGeneration = st.observedGeneration;
    if (st.lastScaleTime !== undefined) s.lastScaleTime = st.lastScaleTime;
    const cur: MetricStatus[] = [];
    if (st.currentCPUUtilizationPercentage !== undefined)
      cur.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: st.currentCPUUtilizationPercentage } } });
    cur.push(...(parseAnnotation<MetricStatus[]>(a, CURRENT_METRICS_ANNOTATION) ?? []));
    if (cur.length > 0) s.currentMetrics = cur;
    const conds = parseAnnotation<NonNullable<V2HPA['status']>['conditions']>(a, CONDITIONS_ANNOTATION);
    if (conds?.length) s.conditions = conds;
    (out as { status?: unknown }).status = s;
  }
  defaultHorizontalPodAutoscaler(out);
  return out;
}
