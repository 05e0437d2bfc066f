/**
 * batch/v1 Job validation as upstream's pkg/apis/batch/validation: the spec (counts,
 * completion mode, backoff limits per index, pod failure policy, pod replacement policy,
 * the pod template with restartPolicy OnFailure or Never), the generated selector, and
 * the fields that may not change on update.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/batch/validation/validation.go
 */
import type { JobSpec, PodFailurePolicyRule } from 'kubernetes-types/batch/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { duplicate, type FieldError, invalid, notSupported, omitValue, Path, required, tooMany } from '../../../../apimachinery/field-errors.js';
import { labelSelectorAsSelector } from '../../../../apimachinery/labels.js';
import { isDNS1123Label, isQualifiedName, validateImmutableField, validateLabelSelector } from '../../../../apimachinery/validation.js';
import { type PodTemplate, validateOptionalNonnegative, validatePodTemplateSpec } from '../../../apps/v1/shared/template.js';

/** Labels the API server generates for a Job's pods and selector. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

const MAX_PARALLELISM_INDEXED = 100000;
const MAX_FAILED_INDEXES = 100_000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_CONDITION_PATTERNS = 20;
const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];

function validateRule(spec: JobSpec, rule: PodFailurePolicyRule, p: Path, containerNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const ap = p.child('action');
  if (!rule.action) errs.push(required(ap, `valid values: ["${ACTIONS.join('" "')}"]`));
  else if (rule.action === 'FailIndex') {
    if (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null) errs.push(invalid(ap, rule.action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!ACTIONS.includes(rule.action)) errs.push(notSupported(ap, rule.action, ACTIONS));
  const ec = rule.onExitCodes;
  if (ec) {
    const ep = p.child('onExitCodes');
    if (!ec.operator) errs.push(required(ep.child('operator'), 'valid values: ["In" "NotIn"]'));
    else if (ec.operator !== 'In' && ec.operator !== 'NotIn') errs.push(notSupported(ep.child('operator'), ec.operator, ['In', 'NotIn']));
    if (ec.containerName !== undefined && ec.containerName !== null && !containerNames.has(ec.containerName)) {
      errs.push(invalid(ep.child('containerName'), ec.containerName, 'must be one of the container or initContainer names in the pod template'));
    }
    const vp = ep.child('values');
    const values = ec.values ?? [];
    if (values.length === 0) errs.push(invalid(vp, values, 'at least one value is required'));
    else if (values.length > MAX_EXIT_CODE_VALUES) errs.push(tooMany(vp, values.length, MAX_EXIT_CODE_VALUES));
    const seen = new Set<number>();
    let ordered = true;
    values.forEach((v, j) => {
      if (ec.operator === 'In' && v === 0) errs.push(invalid(vp.index(j), v, 'must not be 0 for the In operator'));
      if (seen.has(v)) errs.push(duplicate(vp.index(j), v));
      else seen.add(v);
      if (j > 0 && values[j - 1]! > v) ordered = false;
    });
    if (!ordered) errs.push(invalid(vp, values, 'must be ordered'));
  }
  const pcs = rule.onPodConditions ?? [];
  if (pcs.length) {
    const pp = p.child('onPodConditions');
    if (pcs.length > MAX_CONDITION_PATTERNS) errs.push(tooMany(pp, pcs.length, MAX_CONDITION_PATTERNS));
    pcs.forEach((c, j) => {
      for (const m of isQualifiedName(c.type ?? '')) errs.push(invalid(pp.index(j).child('type'), c.type ?? '', m));
      if (!c.status) errs.push(required(pp.index(j).child('status'), 'valid values: ["False" "True" "Unknown"]'));
      else if (!['False', 'True', 'Unknown'].includes(c.status)) errs.push(notSupported(pp.index(j).child('status'), c.status, ['False', 'True', 'Unknown']));
    });
  }
  if (ec && pcs.length) errs.push(invalid(p, omitValue, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!ec && !pcs.length) errs.push(invalid(p, omitValue, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

/** Upstream validateJobSpec (shared by Jobs and CronJob job templates). */
export function validateJobSpecFields(spec: JobSpec, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateOptionalNonnegative(spec.parallelism, p.child('parallelism')));
  errs.push(...validateOptionalNonnegative(spec.completions, p.child('completions')));
  errs.push(...validateOptionalNonnegative(spec.activeDeadlineSeconds, p.child('activeDeadlineSeconds')));
  errs.push(...validateOptionalNonnegative(spec.backoffLimit, p.child('backoffLimit')));
  errs.push(...validateOptionalNonnegative(spec.ttlSecondsAfterFinished, p.child('ttlSecondsAfterFinished')));
  errs.push(...validateOptionalNonnegative(spec.backoffLimitPerIndex, p.child('backoffLimitPerIndex')));
  const hasBLPI = spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null;
  const hasMFI = spec.maxFailedIndexes !== undefined && spec.maxFailedIndexes !== null;
  if (hasMFI) {
    errs.push(...validateOptionalNonnegative(spec.maxFailedIndexes, p.child('maxFailedIndexes')));
    if (!hasBLPI) errs.push(required(p.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(notSupported(p.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (spec.completions === undefined || spec.completions === null) errs.push(required(p.child('completions'), 'when completion mode is Indexed'));
      if ((spec.parallelism ?? 0) > MAX_PARALLELISM_INDEXED) {
        errs.push(invalid(p.child('parallelism'), spec.parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
      }
      if (hasMFI && spec.completions !== undefined && spec.maxFailedIndexes! > spec.completions) {
        errs.push(invalid(p.child('maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to completions'));
      }
      if (hasMFI && spec.maxFailedIndexes! > MAX_FAILED_INDEXES)
        errs.push(invalid(p.child('maxFailedIndexes'), spec.maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
    }
  }
  if (!mode || mode === 'NonIndexed') {
    if (hasBLPI) errs.push(invalid(p.child('backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (hasMFI) errs.push(invalid(p.child('maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  const pfp = spec.podFailurePolicy;
  if (pfp) {
    const rp = p.child('podFailurePolicy', 'rules');
    const rules = pfp.rules ?? [];
    if (rules.length > MAX_POD_FAILURE_POLICY_RULES) errs.push(tooMany(rp, rules.length, MAX_POD_FAILURE_POLICY_RULES));
    const names = new Set<string>();
    for (const c of [...(spec.template?.spec?.containers ?? []), ...(spec.template?.spec?.initContainers ?? [])]) names.add(c.name);
    rules.forEach((r, i) => errs.push(...validateRule(spec, r, rp.index(i), names)));
  }
  if (spec.successPolicy && mode !== 'Indexed') errs.push(invalid(p.child('successPolicy'), spec.successPolicy, 'requires indexed completion mode'));
  const prp = spec.podReplacementPolicy;
  if (prp !== undefined && prp !== null) {
    if (pfp) {
      if (prp !== 'Failed') errs.push(notSupported(p.child('podReplacementPolicy'), prp, ['Failed']));
    } else if (prp !== 'Failed' && prp !== 'TerminatingOrFailed') errs.push(notSupported(p.child('podReplacementPolicy'), prp, ['Failed', 'TerminatingOrFailed']));
  }
  errs.push(...validatePodTemplateSpec(spec.template as PodTemplate, p.child('template')));
  const rp = spec.template?.spec?.restartPolicy ?? '';
  const rpp = p.child('template', 'spec', 'restartPolicy');
  if (rp === 'Always' || rp === '') errs.push(required(rpp, 'valid values: "OnFailure", "Never"'));
  else if (rp !== 'OnFailure' && rp !== 'Never') errs.push(notSupported(rpp, rp, ['OnFailure', 'Never']));
  else if (pfp && rp !== 'Never') errs.push(invalid(rpp, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

/** Upstream ValidateJobSpec: the fields plus the selector, which must match the template labels. */
function validateJobSpec(spec: JobSpec, p: Path): FieldError[] {
  const errs = validateJobSpecFields(spec, p);
  if (!spec.selector) errs.push(required(p.child('selector'), ''));
  else errs.push(...validateLabelSelector(spec.selector, p.child('selector')));
  if (spec.selector) {
    try {
      const sel = labelSelectorAsSelector(spec.selector);
      const labels = spec.template?.metadata?.labels ?? {};
      if (!sel.matches(labels)) errs.push(invalid(p.child('template', 'metadata', 'labels'), labels, '`selector` does not match template `labels`'));
    } catch {
      /* reported by validateLabelSelector */
    }
  }
  return errs;
}

function hasLabel(meta: ObjectMeta | undefined, p: Path, key: string, value: string): FieldError[] {
  const actual = meta?.labels?.[key];
  if (actual === undefined) return [required(p.child('labels').key(key), value)];
  if (actual !== value) return [invalid(p.child('labels').key(key), meta?.labels, value)];
  return [];
}

/** Upstream validateGeneratedSelector: the template carries the generated labels and the selector selects them. */
function validateGeneratedSelector(job: { metadata: ObjectMeta; spec?: JobSpec }): FieldError[] {
  const spec = job.spec;
  if (!spec || spec.manualSelector || !spec.selector) return [];
  const errs: FieldError[] = [];
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (!uid) errs.push(required(Path.root('metadata').child('uid'), ''));
  const tp = Path.root('spec').child('template', 'metadata');
  const tm = spec.template?.metadata;
  errs.push(...hasLabel(tm, tp, LEGACY_CONTROLLER_UID_LABEL, uid), ...hasLabel(tm, tp, LEGACY_JOB_NAME_LABEL, name));
  errs.push(...hasLabel(tm, tp, CONTROLLER_UID_LABEL, uid), ...hasLabel(tm, tp, JOB_NAME_LABEL, name));
  try {
    const sel = labelSelectorAsSelector(spec.selector);
    const expected = { [CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name, [LEGACY_CONTROLLER_UID_LABEL]: uid, [LEGACY_JOB_NAME_LABEL]: name };
    if (!sel.matches(expected)) errs.push(invalid(Path.root('spec').child('selector'), spec.selector, '`selector` not auto-generated'));
  } catch {
    /* reported elsewhere */
  }
  return errs;
}

/** Upstream ValidateJob (without ObjectMeta, which the store validates). */
export function validateJob(job: { metadata: ObjectMeta; spec?: JobSpec }): FieldError[] {
  const spec = job.spec ?? ({} as JobSpec);
  const errs = validateGeneratedSelector(job);
  errs.push(...validateJobSpec(spec, Path.root('spec')));
  if (spec.completionMode === 'Indexed' && (spec.completions ?? 0) > 0) {
    const host = `${job.metadata.name}-${spec.completions! - 1}`;
    if (isDNS1123Label(host).length) {
      errs.push(invalid(Path.root('metadata').child('name'), job.metadata.name, `will not able to create pod with invalid DNS label: ${host}`));
    }
  }
  return errs;
}

/**
 * Upstream ValidateJobSpecUpdate: completions, selector, completionMode,
 * podFailurePolicy, backoffLimitPerIndex, managedBy, successPolicy immutable; the template
 * too, except node affinity, node selector, tolerations, labels, annotations and
 * scheduling gates of a suspended job that never started.
 */
export function validateJobUpdate(job: { metadata: ObjectMeta; spec?: JobSpec; status?: { startTime?: string } }, old: { spec?: JobSpec }): FieldError[] {
  const n = job.spec ?? ({} as JobSpec);
  const o = old.spec ?? ({} as JobSpec);
  const p = Path.root('spec');
  const errs = validateJobSpec(n, p);
  errs.push(...validateImmutableField(n.completions, o.completions, p.child('completions')));
  errs.push(...validateImmutableField(n.selector, o.selector, p.child('selector')));
  let oldTemplate = o.template;
  if (n.suspend && !job.status?.startTime && n.template && o.template) {
    const ot = structuredClone(o.template);
    const nt = n.template;
    ot.metadata = { ...ot.metadata, labels: nt.metadata?.labels, annotations: nt.metadata?.annotations };
    if (ot.spec && nt.spec) {
      ot.spec.nodeSelector = nt.spec.nodeSelector;
      ot.spec.tolerations = nt.spec.tolerations;
      ot.spec.schedulingGates = nt.spec.schedulingGates;
      if (nt.spec.affinity || ot.spec.affinity) ot.spec.affinity = { ...ot.spec.affinity, nodeAffinity: nt.spec.affinity?.nodeAffinity };
    }
    oldTemplate = ot;
  }
  errs.push(...validateImmutableField(n.template, oldTemplate, p.child('template')));
  errs.push(...validateImmutableField(n.completionMode, o.completionMode, p.child('completionMode')));
  errs.push(...validateImmutableField(n.podFailurePolicy, o.podFailurePolicy, p.child('podFailurePolicy')));
  errs.push(...validateImmutableField(n.backoffLimitPerIndex, o.backoffLimitPerIndex, p.child('backoffLimitPerIndex')));
  errs.push(...validateImmutableField(n.managedBy, o.managedBy, p.child('managedBy')));
  errs.push(...validateImmutableField(n.successPolicy, o.successPolicy, p.child('successPolicy')));
  return errs;
}
