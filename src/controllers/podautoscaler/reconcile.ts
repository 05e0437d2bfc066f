/**
 * One reconcile of a HorizontalPodAutoscaler (upstream HorizontalController.reconcileAutoscaler):
 * read the target's scale subresource; outside [minReplicas, maxReplicas] rescale to the
 * bound ("Current number of replicas below Spec.MinReplicas" / "… above Spec.MaxReplicas",
 * event SuccessfulRescale); at zero replicas report ScalingDisabled; otherwise compute the
 * replica count from the metrics (./compute-metric.ts: Resource, ContainerResource, Pods,
 * Object, External); the largest proposal wins, then upstream's normalization — without
 * `spec.behavior` ./normalize.ts (scale-down stabilization, scale-up limit max(2×, 4),
 * min/max), with it ./behavior.ts (stabilization windows and rate policies). A failure of
 * every metric gives upstream's conditions and events (FailedGet…Metric,
 * FailedComputeMetricsReplicas) and leaves the scale alone.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/podautoscaler/horizontal.go
 */
import type {
  CrossVersionObjectReference,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerStatus,
  MetricStatus,
} from 'kubernetes-types/autoscaling/v2.js';
import type { KObject } from '../../api/resource.js';
import type { EventRecorder } from '../../client/events.js';
import { rfc3339 } from '../../client/events.js';
import type { ResourceRef } from '../../client/types.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodMetric } from './replica-calculator.js';
import { computeForMetric } from './compute-metric.js';
import { normalizeDesiredReplicas } from './normalize.js';
import { type BehaviorHistory, normalizeWithBehaviors, recordScaleEvent } from './behavior.js';
import { DEFAULT_HPA_CONFIG, type HPAConfig } from './config.js';

/** An HPA as the controller handles it (autoscaling/v2). */
export type HPA = HorizontalPodAutoscaler & KObject;
type Status = { -readonly [K in keyof HorizontalPodAutoscalerStatus]: HorizontalPodAutoscalerStatus[K] };
type Condition = { -readonly [K in keyof HorizontalPodAutoscalerCondition]: HorizontalPodAutoscalerCondition[K] };

/** autoscaling/v1 Scale as the scale subresource serves it. */
export interface Scale extends KObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

/** Reads metrics (upstream metricsclient.MetricsClient); values in milli-units. */
export interface MetricsClient {
  /**
   * Usage of `resource` (e.g. `cpu`) per pod matching `selector` in `namespace`; with
   * `container`, that container's only (ContainerResource metrics).
   * @throws Error with upstream's message when the resource metrics API cannot be read
   */
  getResourceMetric(resource: string, namespace: string, selector: string, container?: string): Promise<Map<string, PodMetric>>;
  /** A custom metric of each pod matching `selector` (Pods metrics). */
  getRawMetric?(metricName: string, namespace: string, selector: string, metricSelector: string): Promise<Map<string, PodMetric>>;
  /** A custom metric of one object (Object metrics). */
  getObjectMetric?(metricName: string, namespace: string, ref: CrossVersionObjectReference, metricSelector: string): Promise<{ value: number; timestamp: number }>;
  /** The values of an external metric. */
  getExternalMetric?(metricName: string, namespace: string, metricSelector: string): Promise<{ values: number[]; timestamp: number }>;
}

/** What a reconcile needs from the outside world. */
export interface ReconcileDeps {
  /** the target's Scale and the resource serving it; throws with the error's message on failure */
  getScale(apiVersion: string, kind: string, namespace: string, name: string): Promise<{ scale: Scale; resource: ResourceRef }>;
  /** writes scale.spec.replicas; throws on failure */
  updateScale(resource: ResourceRef, namespace: string, scale: Scale): Promise<void>;
  metrics: MetricsClient;
  /** the pods matching `selector` in `namespace` (the replica calculator's pod lister) */
  listPods?(namespace: string, selector: string): Promise<Pod[]>;
  /** per HPA (`namespace/name`): past recommendations and scale events, for stabilization and behavior rates */
  history?: Map<string, BehaviorHistory>;
  recorder: EventRecorder;
  /** the controller's flags (default: upstream's) */
  config?: HPAConfig;
  /** wall clock (ms since epoch) */
  now(): number;
}

/** The outcome: the status to write (a new object) and the error upstream returns, if any. */
interface ReconcileResult {
  status: Status;
  error?: Error;
}

/** Upstream setConditionInList: lastTransitionTime changes only when the status does. */
export function setCondition(st: Status, type: string, status: 'True' | 'False', reason: string, message: string, now: number): void {
  const list = (st.conditions ??= []) as Condition[];
  let c = list.find((x) => x.type === type);
  if (!c) {
    c = { type, status } as Condition;
    list.push(c);
  }
  if (c.status !== status || !c.lastTransitionTime) c.lastTransitionTime = rfc3339(new Date(now));
  c.status = status;
  c.reason = reason;
  c.message = message;
}

const withKind = (h: HPA): HPA => (h.kind ? h : { ...h, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });

/**
 * Reconciles one HPA. Never throws: failures come back in `error` (upstream returns them
 * to be logged), the status always reflects what was observed.
 */
export async function reconcileAutoscaler(hpa: HPA, deps: ReconcileDeps): Promise<ReconcileResult> {
  const now = deps.now();
  const spec = hpa.spec!;
  const ns = hpa.metadata?.namespace ?? '';
  const ref = spec.scaleTargetRef;
  const reference = `${ref.kind}/${ref.name}`;
  const st = structuredClone(hpa.status ?? {}) as Status;
  const key = `${ns}/${hpa.metadata?.name ?? ''}`;
  const histories = (deps.history ??= new Map());
  const history = (): BehaviorHistory => {
    let h = histories.get(key);
    if (!h) histories.set(key, (h = { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] }));
    return h;
  };
  const setStatus = (current: number, desired: number, metrics: MetricStatus[] | undefined, rescaled: boolean): void => {
    st.currentReplicas = current;
    st.desiredReplicas = desired;
    if (metrics) st.currentMetrics = metrics;
    else delete st.currentMetrics;
    if (rescaled) st.lastScaleTime = rfc3339(new Date(now));
  };

  let got: { scale: Scale; resource: ResourceRef };
  try {
    got = await deps.getScale(ref.apiVersion ?? '', ref.kind, ns, ref.name);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    deps.recorder.event(withKind(hpa), 'Warning', 'FailedGetScale', msg);
    setCondition(st, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${msg}`, now);
    return { status: st, error: new Error(`failed to query scale subresource for ${reference}: ${msg}`) };
  }
  const { scale, resource } = got;
  setCondition(st, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", now);
  const current = scale.spec?.replicas ?? 0;
  const min = spec.minReplicas ?? 1;
  const max = spec.maxReplicas;

  let desired: number;
  let reason = '';
  let metricStatuses: MetricStatus[] | undefined;
  let rescale = true;
  if (current === 0 && min !== 0) {
    desired = 0;
    rescale = false;
    setCondition(st, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
  } else if (current > max) {
    reason = 'Current number of replicas above Spec.MaxReplicas';
    desired = max;
  } else if (current < min) {
    reason = 'Current number of replicas below Spec.MinReplicas';
    desired = min;
  } else {
    // upstream computeReplicasForMetrics
    const selector = scale.status?.selector ?? '';
    if (!selector) {
      deps.recorder.event(withKind(hpa), 'Warning', 'SelectorRequired', 'selector is required');
      setCondition(st, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", now);
      const err = new Error('selector is required');
      setStatus(current, st.desiredReplicas ?? 0, undefined, false);
      deps.recorder.event(withKind(hpa), 'Warning', 'FailedComputeMetricsReplicas', err.message);
      return { status: st, error: new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${err.message}`) };
    }
    const metrics = spec.metrics ?? [];
    metricStatuses = metrics.map(() => ({ type: '' }) as MetricStatus);
    let first: { condition: Condition; error: Error } | undefined;
    let invalid = 0;
    let proposal = 0;
    let metricName = '';
    for (const [i, m] of metrics.entries()) {
      const r = await computeForMetric(hpa, m, selector, current, scale.status?.replicas ?? current, deps);
      if ('error' in r) {
        first ??= r;
        invalid++;
        continue;
      }
      metricStatuses[i] = r.status;
      if (metricName === '' || r.replicas > proposal) {
        proposal = r.replicas;
        metricName = r.name;
      }
    }
    // upstream: every metric invalid, or some invalid while the others would scale down
    if (invalid >= metrics.length || (invalid > 0 && proposal < current)) {
      const err = first
        ? new Error(`invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${first.error.message}`)
        : new Error('invalid metrics (0 invalid out of 0)');
      if (first) setCondition(st, first.condition.type, first.condition.status as 'True' | 'False', first.condition.reason ?? '', first.condition.message ?? '', now);
      setStatus(current, st.desiredReplicas ?? 0, metricStatuses, false);
      deps.recorder.event(withKind(hpa), 'Warning', 'FailedComputeMetricsReplicas', err.message);
      return { status: st, error: new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${err.message}`) };
    }
    setCondition(st, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metricName}`, now);
    if (proposal > current) reason = `${metricName} above target`;
    else if (proposal < current) reason = 'All metrics below target';
    const downscaleMs = (deps.config ?? DEFAULT_HPA_CONFIG).downscaleStabilizationMs;
    const h = history();
    if (spec.behavior) {
      const n = normalizeWithBehaviors(h, spec.behavior, proposal, current, min, max, now, downscaleMs);
      for (const c of n.conditions) setCondition(st, c.type, c.status, c.reason, c.message, now);
      desired = n.replicas;
    } else {
      const n = normalizeDesiredReplicas(h.recommendations, proposal, current, min, max, now, downscaleMs);
      h.recommendations = n.recommendations;
      for (const c of n.conditions) setCondition(st, c.type, c.status, c.reason, c.message, now);
      desired = n.replicas;
    }
    rescale = desired !== current;
  }

  if (rescale) {
    try {
      await deps.updateScale(resource, ns, { ...scale, spec: { ...scale.spec, replicas: desired } });
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      deps.recorder.event(withKind(hpa), 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${msg}`);
      setCondition(st, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${msg}`, now);
      setStatus(current, st.desiredReplicas ?? 0, metricStatuses, false);
      return { status: st, error: new Error(`failed to rescale ${reference}: ${msg}`) };
    }
    if (spec.behavior) recordScaleEvent(history(), spec.behavior, current, desired, now);
    setCondition(st, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`, now);
    deps.recorder.event(withKind(hpa), 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
  } else {
    desired = current;
  }
  setStatus(current, desired, metricStatuses, rescale);
  return { status: st };
}
