/**
 * autoscaling/v2 HorizontalPodAutoscaler validation with upstream's messages: replica
 * bounds, scaleTargetRef, each metric (source type, exactly one source populated, its
 * target) and the scaling behavior rules.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/autoscaling/validation/validation.go
 */
import type { CrossVersionObjectReference, HorizontalPodAutoscaler, HPAScalingRules, MetricIdentifier, MetricSpec, MetricTarget } from 'kubernetes-types/autoscaling/v2.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { tryParseQuantity } from '../../../../apimachinery/quantity.js';
import { isDNS1123Label, validateLabelSelector } from '../../../../apimachinery/validation.js';
import type { O } from '../../../core/v1/shared/types.js';

/** Upstream MaxPeriodSeconds / MaxStabilizationWindowSeconds. */
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const TARGET_TYPES = new Set(['Utilization', 'Value', 'AverageValue']);

/** Upstream path.IsValidPathSegmentName. */
function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const out: string[] = [];
  if (name.includes('/')) out.push(`may not contain '/'`);
  if (name.includes('%')) out.push(`may not contain '%'`);
  return out;
}

/** Upstream ValidateCrossVersionObjectReference. */
function validateCrossVersionObjectReference(ref: CrossVersionObjectReference | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const kind = ref?.kind ?? '';
  const name = ref?.name ?? '';
  if (!kind) errs.push(required(p.child('kind'), ''));
  else for (const m of isValidPathSegmentName(kind)) errs.push(invalid(p.child('kind'), kind, m));
  if (!name) errs.push(required(p.child('name'), ''));
  else for (const m of isValidPathSegmentName(name)) errs.push(invalid(p.child('name'), name, m));
  return errs;
}

/** Quantity sign (1, 0, -1); NaN when unparsable (reported by schema validation, not here). */
function sign(q: string | number | undefined): number {
  if (q === undefined) return Number.NaN;
  const v = tryParseQuantity(String(q));
  if (!v) return Number.NaN;
  return v.mantissa > 0n ? 1 : v.mantissa < 0n ? -1 : 0;
}

function validateMetricTarget(t: MetricTarget | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = t?.type ?? '';
  if (!type) errs.push(required(p.child('type'), 'must specify a metric target type'));
  if (!TARGET_TYPES.has(type)) errs.push(invalid(p.child('type'), type, 'must be either Utilization, Value, or AverageValue'));
  if (t?.value !== undefined && sign(t.value) !== 1) errs.push(invalid(p.child('value'), t.value, 'must be positive'));
  if (t?.averageValue !== undefined && sign(t.averageValue) !== 1) errs.push(invalid(p.child('averageValue'), t.averageValue, 'must be positive'));
  if (t?.averageUtilization !== undefined && t.averageUtilization < 1) errs.push(invalid(p.child('averageUtilization'), t.averageUtilization, 'must be greater than 0'));
  return errs;
}

function validateMetricIdentifier(id: MetricIdentifier | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = id?.name ?? '';
  if (!name) errs.push(required(p.child('name'), 'must specify a metric name'));
  else for (const m of isValidPathSegmentName(name)) errs.push(invalid(p.child('name'), name, m));
  if (id?.selector) errs.push(...validateLabelSelector(id.selector, p.child('selector')));
  return errs;
}

/** The per-source checks of upstream validateObjectSource … validateContainerResourceSource. */
function validateSource(m: MetricSpec, key: string, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const tp = p.child('target');
  switch (key) {
    case 'object': {
      const s = m.object!;
      errs.push(...validateCrossVersionObjectReference(s.describedObject, p.child('describedObject')));
      errs.push(...validateMetricIdentifier(s.metric, p.child('metric')));
      errs.push(...validateMetricTarget(s.target, tp));
      if (s.target?.value === undefined && s.target?.averageValue === undefined) errs.push(required(tp.child('averageValue'), 'must set either a target value or averageValue'));
      break;
    }
    case 'pods': {
      const s = m.pods!;
      errs.push(...validateMetricIdentifier(s.metric, p.child('metric')));
      errs.push(...validateMetricTarget(s.target, tp));
      if (s.target?.averageValue === undefined) errs.push(required(tp.child('averageValue'), 'must specify a positive target averageValue'));
      break;
    }
    case 'external': {
      const s = m.external!;
      errs.push(...validateMetricIdentifier(s.metric, p.child('metric')));
      errs.push(...validateMetricTarget(s.target, tp));
      const v = s.target?.value !== undefined;
      const av = s.target?.averageValue !== undefined;
      if (!v && !av) errs.push(required(tp.child('averageValue'), 'must set either a target value for metric or a per-pod target'));
      if (v && av) errs.push(forbidden(tp.child('value'), 'may not set both a target value for metric and a per-pod target'));
      break;
    }
    case 'resource':
    case 'containerResource': {
      const s = (key === 'resource' ? m.resource : m.containerResource) as { name?: string; container?: string; target?: MetricTarget };
      if (!s.name) errs.push(required(p.child('name'), 'must specify a resource name'));
      if (key === 'containerResource') {
        if (!s.container) errs.push(required(p.child('container'), 'must specify a container'));
        else for (const msg of isDNS1123Label(s.container)) errs.push(invalid(p.child('container'), s.container, msg));
      }
      errs.push(...validateMetricTarget(s.target, tp));
      const u = s.target?.averageUtilization !== undefined;
      const av = s.target?.averageValue !== undefined;
      if (!u && !av) errs.push(required(tp.child('averageUtilization'), 'must set either a target raw value or a target utilization'));
      if (u && av) errs.push(forbidden(tp.child('averageValue'), 'may not set both a target raw value and a target utilization'));
      break;
    }
  }
  return errs;
}

const SOURCE_KEYS = ['object', 'pods', 'resource', 'external', 'containerResource'] as const;

/** Upstream validateMetricSpec. */
function validateMetricSpec(m: MetricSpec, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = m.type ?? '';
  if (!type) errs.push(required(p.child('type'), 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(notSupported(p.child('type'), type, METRIC_SOURCE_TYPES));
  const present: string[] = [];
  for (const k of SOURCE_KEYS) {
    if ((m as unknown as Record<string, unknown>)[k] == null) continue;
    present.push(k);
    if (present.length === 1) errs.push(...validateSource(m, k, p.child(k)));
  }
  const expected = type === 'ContainerResource' ? 'containerResource' : type.toLowerCase();
  if (!present.includes(expected)) errs.push(required(p.child(expected), 'must populate information for the given metric source'));
  if (present.length !== 1) for (const k of present) if (k !== expected) errs.push(forbidden(p.child(k), 'must populate the given metric source only'));
  return errs;
}

/** Upstream validateScalingRules. */
function validateScalingRules(r: HPAScalingRules | undefined, p: Path): FieldError[] {
  if (!r) return [];
  const errs: FieldError[] = [];
  const w = r.stabilizationWindowSeconds;
  if (w !== undefined && w < 0) errs.push(invalid(p.child('stabilizationWindowSeconds'), w, 'must be greater than or equal to zero'));
  if (w !== undefined && w > MAX_STABILIZATION_WINDOW_SECONDS)
    errs.push(invalid(p.child('stabilizationWindowSeconds'), w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  if (r.selectPolicy !== undefined && !SELECT_POLICIES.includes(r.selectPolicy)) errs.push(notSupported(p.child('selectPolicy'), r.selectPolicy, SELECT_POLICIES));
  const pp = p.child('policies');
  if (!r.policies || r.policies.length === 0) errs.push(required(pp, 'must specify at least one Policy'));
  (r.policies ?? []).forEach((pol, i) => {
    const ip = pp.index(i);
    if (!POLICY_TYPES.includes(pol.type)) errs.push(notSupported(ip.child('type'), pol.type, POLICY_TYPES));
    if (!(pol.value > 0)) errs.push(invalid(ip.child('value'), pol.value, 'must be greater than zero'));
    if (!(pol.periodSeconds > 0)) errs.push(invalid(ip.child('periodSeconds'), pol.periodSeconds, 'must be greater than zero'));
    if (pol.periodSeconds > MAX_PERIOD_SECONDS) errs.push(invalid(ip.child('periodSeconds'), pol.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** Upstream validateHorizontalPodAutoscalerSpec (minReplicas lower bound 1: HPAScaleToZero is alpha, off). */
export function validateHorizontalPodAutoscaler(hpa: O<HorizontalPodAutoscaler>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = hpa.spec;
  const p = Path.root('spec');
  const min = spec?.minReplicas;
  const max = spec?.maxReplicas ?? 0;
  if (min !== undefined && min < 1) errs.push(invalid(p.child('minReplicas'), min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(invalid(p.child('maxReplicas'), max, 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(invalid(p.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec?.scaleTargetRef, p.child('scaleTargetRef')));
  (spec?.metrics ?? []).forEach((m, i) => errs.push(...validateMetricSpec(m, p.child('metrics').index(i))));
  const b = spec?.behavior;
  if (b) {
    errs.push(...validateScalingRules(b.scaleUp, p.child('behavior').child('scaleUp')));
    errs.push(...validateScalingRules(b.scaleDown, p.child('behavior').child('scaleDown')));
  }
  return errs;
}

/** Upstream ValidateHorizontalPodAutoscalerStatusUpdate (its "desiredReplicasa" path typo included). */
export function validateHorizontalPodAutoscalerStatus(hpa: O<HorizontalPodAutoscaler>): FieldError[] {
  const errs: FieldError[] = [];
  const s = hpa.status;
  if ((s?.currentReplicas ?? 0) < 0) errs.push(invalid(Path.root('status').child('currentReplicas'), s?.currentReplicas, 'must be greater than or equal to 0'));
  if ((s?.desiredReplicas ?? 0) < 0) errs.push(invalid(Path.root('status').child('desiredReplicasa'), s?.desiredReplicas, 'must be greater than or equal to 0'));
  return errs;
}
