/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding (cluster-scoped,
 * category `api-extensions`): defaults (matchResources' matchPolicy Equivalent and empty
 * selectors, paramRef.parameterNotFoundAction Deny), validation as upstream
 * ValidateValidatingAdmissionPolicyBinding (policyName, paramRef name xor selector,
 * validationActions), generation 1 on create and +1 on spec changes, printer NAME
 * POLICYNAME PARAMREF AGE.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/admissionregistration/validatingadmissionpolicybinding/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/admissionregistration/validation/validation.go
 */
import type { ParamRef, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { duplicate, type FieldError, forbidden, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1123Subdomain, jsonEqual, validateLabelSelector } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';
import { validatePathSegmentName } from '../../../core/v1/event/strategy.js';
import type { ResourceDefinition } from '../../../resource.js';
import { validateMatchResources } from '../rules.js';
import { defaultMatchResources } from '../validatingadmissionpolicy/strategy.js';

const SPEC = Path.root('spec');
const ACTIONS = ['Audit', 'Deny', 'Warn'];

function validateParamRef(pr: ParamRef | undefined, p: Path): FieldError[] {
  if (!pr) return [];
  const errs: FieldError[] = [];
  const name = pr.name ?? '';
  if (name.length > 0) {
    for (const m of validatePathSegmentName(name, false)) errs.push(invalid(p.child('name'), name, m));
    if (pr.selector) errs.push(forbidden(p.child('name'), 'name and selector are mutually exclusive'));
  }
  if (pr.selector) {
    errs.push(...validateLabelSelector(pr.selector, p.child('selector')));
    if (name.length > 0) errs.push(forbidden(p.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !pr.selector) errs.push(required(p, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (!action) errs.push(required(p.child('parameterNotFoundAction'), ''));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(notSupported(p.child('parameterNotFoundAction'), action, ['Deny', 'Allow']));
  return errs;
}

function validateActions(actions: readonly string[] | undefined, p: Path): FieldError[] {
  const list = actions ?? [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((a, i) => {
    if (!ACTIONS.includes(a)) errs.push(notSupported(p.index(i), a, ACTIONS));
    if (seen.has(a)) errs.push(duplicate(p.index(i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalid(p, list, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(required(p, 'at least one validation action is required'));
  return errs;
}

/** Upstream validateValidatingAdmissionPolicyBindingSpec. */
function validateBinding(obj: O<ValidatingAdmissionPolicyBinding>): FieldError[] {
  const spec = obj.spec ?? {};
  const errs: FieldError[] = [];
  const policy = spec.policyName ?? '';
  if (policy.length === 0) errs.push(required(SPEC.child('policyName'), ''));
  else errs.push(...isDNS1123Subdomain(policy).map((m) => invalid(SPEC.child('policyName'), policy, m)));
  errs.push(...validateParamRef(spec.paramRef, SPEC.child('paramRef')));
  errs.push(...validateMatchResources(spec.matchResources, SPEC.child('matchResources')));
  errs.push(...validateActions(spec.validationActions, SPEC.child('validationActions')));
  return errs;
}

/** Go's generated LabelSelector.String(), which upstream's PARAMREF column prints for selectors. */
export function goLabelSelectorString(sel: LabelSelector): string {
  const labels = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${sel.matchLabels![k]},`)
    .join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** admissionregistration.k8s.io/v1 validatingadmissionpolicybindings. */
export const validatingAdmissionPolicyBindingDefinition: ResourceDefinition<K<ValidatingAdmissionPolicyBinding>> = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  listKind: 'ValidatingAdmissionPolicyBindingList',
  resource: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  namespaced: false,
  categories: ['api-extensions'],
  schemaRef: 'admissionregistration/v1#ValidatingAdmissionPolicyBinding',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const spec = (obj.spec ??= {});
    defaultMatchResources(spec.matchResources);
    if (spec.paramRef) spec.paramRef.parameterNotFoundAction ??= 'Deny';
  },
  prepareForCreate(obj) {
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    const gen = old.metadata.generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validateBinding(obj);
  },
  validateUpdate(obj) {
    return validateBinding(obj);
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
      column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      const pr = obj.spec?.paramRef;
      let param = '<unset>';
      if (pr?.name) param = pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
      else if (pr?.selector) param = goLabelSelectorString(pr.selector);
      return [obj.metadata.name ?? '', obj.spec?.policyName ?? '', param, translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
