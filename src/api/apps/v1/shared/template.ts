/**
 * Pod templates inside workload objects (apps/v1, batch/v1): defaulting as upstream's
 * generated SetObjectDefaults_* do for an embedded PodTemplateSpec (SetDefaults_PodSpec,
 * containers, volumes — but not the Pod-only SetDefaults_Pod), and upstream's
 * ValidatePodTemplateSpec plus the ReplicaSet-style checks shared by Deployments and
 * ReplicaSets.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/v1/defaults.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/core/validation/validation.go (ValidatePodTemplateSpec)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/apps/validation/validation.go
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { labelSelectorAsSelector, type Selector } from '../../../../apimachinery/labels.js';
import { isValidPercent, validateAnnotations, validateLabels, validateLabelSelector, validateNonnegativeField } from '../../../../apimachinery/validation.js';
import { setPodDefaults } from '../../../core/v1/pod/defaults.js';
import type { Container, Pod, PodSpec } from '../../../core/v1/pod/types.js';
import { validatePodSpec, validatePodSpecificAnnotations } from '../../../core/v1/pod/validation.js';

/** A pod template as the workload types embed it. */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [k: string]: unknown };
  spec?: PodSpec;
}

/**
 * Defaults an embedded pod template in place: the PodSpec, container and volume defaults
 * a Pod gets, without the Pod-only ones (enableServiceLinks, requests copied from limits,
 * host ports for hostNetwork), which upstream applies to Pods only.
 */
export function setPodTemplateDefaults(t: PodTemplate | undefined): void {
  if (!t) return;
  const spec = (t.spec ??= { containers: [] } as unknown as PodSpec);
  const hadServiceLinks = spec.enableServiceLinks !== undefined && spec.enableServiceLinks !== null;
  const saved: { c: Container; requests: string[] | undefined; hostPorts: (number | undefined)[] }[] = [];
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const req = c.resources?.requests;
    saved.push({ c, requests: req ? Object.keys(req) : undefined, hostPorts: (c.ports ?? []).map((p) => p.hostPort) });
  }
  setPodDefaults({ spec } as Pod);
  if (!hadServiceLinks) delete spec.enableServiceLinks;
  for (const s of saved) {
    const res = s.c.resources;
    if (res?.requests) {
      if (!s.requests) delete res.requests;
      else for (const k of Object.keys(res.requests)) if (!s.requests.includes(k)) delete res.requests[k];
    }
    (s.c.ports ?? []).forEach((p, i) => {
      if (s.hostPorts[i] === undefined) delete p.hostPort;
    });
  }
}

/** Upstream ValidatePodTemplateSpec (labels and annotations paths are `<path>.labels` as upstream's). */
export function validatePodTemplateSpec(t: PodTemplate | undefined, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const meta = t?.metadata ?? {};
  const spec = (t?.spec ?? { containers: [] }) as PodSpec;
  errs.push(...validateLabels(meta.labels, p.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, p.child('annotations')));
  errs.push(...validatePodSpecificAnnotations(meta.annotations, spec, p.child('annotations')));
  errs.push(...validatePodSpec(spec, undefined, p.child('spec'), { resourceIsPod: false }));
  if (spec.ephemeralContainers?.length) errs.push(forbidden(p.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  return errs;
}

/** The compiled selector, or undefined when it cannot be compiled. */
export function compileSelector(sel: LabelSelector | undefined): Selector | undefined {
  try {
    return labelSelectorAsSelector(sel);
  } catch {
    return undefined;
  }
}

/**
 * spec.selector: required, valid, non-empty (upstream's message names the kind, e.g.
 * `empty selector is invalid for deployment`; ReplicaSets say "deployment" too).
 */
export function validateWorkloadSelector(sel: LabelSelector | undefined, p: Path, kindWord: string): FieldError[] {
  if (!sel) return [required(p, '')];
  const errs = validateLabelSelector(sel, p);
  if (Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions?.length ?? 0) === 0) errs.push(invalid(p, sel, `empty selector is invalid for ${kindWord}`));
  return errs;
}

/**
 * Upstream ValidatePodTemplateSpecForReplicaSet (also Deployments and, with another
 * kind word, DaemonSets): the selector matches the template labels, the template is a
 * valid pod template, restartPolicy Always, no activeDeadlineSeconds.
 */
export function validateTemplateForController(t: PodTemplate | undefined, sel: LabelSelector | undefined, p: Path, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!t) return [required(p, '')];
  const selector = compileSelector(sel);
  if (selector && !selector.empty() && !selector.matches(t.metadata?.labels ?? {})) {
    errs.push(invalid(p.child('metadata', 'labels'), t.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(t, p));
  const rp = t.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(notSupported(p.child('spec', 'restartPolicy'), rp, ['Always']));
  if (t.spec?.activeDeadlineSeconds !== undefined && t.spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(p.child('spec', 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

/** Upstream ValidatePositiveIntOrPercent: a non-negative integer or a valid percent string. */
export function validatePositiveIntOrPercent(v: number | string | undefined, p: Path): FieldError[] {
  if (v === undefined) return [];
  if (typeof v === 'string') return isValidPercent(v).map((m) => invalid(p, v, m));
  if (typeof v === 'number') return validateNonnegativeField(v, p);
  return [invalid(p, v, "must be an integer or percentage (e.g '5%')")];
}

/** The number of an int-or-percent (`25%` → 25, `3` → 3, malformed → 0), upstream getIntOrPercentValue. */
export function intOrPercentValue(v: number | string | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && isValidPercent(v).length === 0) return Number(v.slice(0, -1));
  return 0;
}

/** Upstream IsNotMoreThan100Percent. */
export function isNotMoreThan100Percent(v: number | string | undefined, p: Path): FieldError[] {
  if (typeof v !== 'string' || isValidPercent(v).length) return [];
  return Number(v.slice(0, -1)) > 100 ? [invalid(p, v, 'must not be greater than 100%')] : [];
}

/** Optional non-negative integer field. */
export function validateOptionalNonnegative(v: number | undefined | null, p: Path): FieldError[] {
  return v === undefined || v === null ? [] : validateNonnegativeField(v, p);
}

/** `names`, `images` of the containers joined with `,` (upstream layoutContainerCells). */
export function layoutContainerCells(containers: { name: string; image?: string }[] | undefined): [string, string] {
  let names = '';
  let images = '';
  const cs = containers ?? [];
  for (let i = 0; i < cs.length; i++) {
    if (i > 0) {
      names += ',';
      images += ',';
    }
    names += cs[i]!.name;
    images += cs[i]!.image ?? '';
  }
  return [names, images];
}

export { Path };
