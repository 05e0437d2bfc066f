/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (cluster-scoped, category
 * `api-extensions`) with its status subresource: defaults (failurePolicy Fail, match
 * constraints' matchPolicy Equivalent and empty selectors, rule scope `*`), validation as
 * upstream ValidateValidatingAdmissionPolicy (CEL expressions compiled when the API server
 * installed its compiler: ../expressions.ts), generation 1 on create and +1 on spec changes,
 * printer NAME VALIDATIONS PARAMKIND AGE. Enforcing policies is another component's job.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/admissionregistration/validation/validation.go
 */
import type { AuditAnnotation, MatchResources, ParamKind, Validation, ValidatingAdmissionPolicy, Variable } from 'kubernetes-types/admissionregistration/v1.js';
import { CEL_RESERVED_WORDS } from '../../../../apimachinery/cel-reserved.js';
import { duplicate, type FieldError, invalid, notSupported, Path, required } from '../../../../apimachinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, jsonEqual } from '../../../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import { validateQualifiedName } from '../../../core/v1/shared/validation.js';
import { clone, type K, mutableMeta, type O } from '../../../core/v1/shared/types.js';
import type { Mutable, ResourceDefinition } from '../../../resource.js';
import { policyExpressionErrors } from '../expressions.js';
import { FAILURE_POLICIES, validateMatchConditions, validateMatchResources } from '../rules.js';

const SPEC = Path.root('spec');
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024;
const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
/** Upstream SetDefaults_MatchResources and SetDefaults_Rule for its rules. */
export function defaultMatchResources(m: MatchResources | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...(m.resourceRules ?? []), ...(m.excludeResourceRules ?? [])]) (r as { scope?: string }).scope ??= '*';
}

/** Upstream validateParamKind. */
function validateParamKind(pk: ParamKind, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const av = pk.apiVersion ?? '';
  if (av.length === 0) errs.push(required(p.child('apiVersion'), ''));
  else {
    const slashes = av.split('/').length - 1;
    if (slashes > 1) errs.push(invalid(p.child('apiVersion'), av, `unexpected GroupVersion string: ${av}`));
    else {
      const [group, version] = slashes === 1 ? av.split('/') : ['', av];
      if (group) {
        const e = isDNS1123Subdomain(group!);
        if (e.length > 0) errs.push(invalid(p.child('apiVersion'), group, e.join(',')));
      }
      if (!version) errs.push(invalid(p.child('apiVersion'), av, 'version must be specified'));
      else {
        const e = isDNS1035Label(version);
        if (e.length > 0) errs.push(invalid(p.child('apiVersion'), version, e.join(',')));
      }
    }
  }
  const kind = pk.kind ?? '';
  if (kind.length === 0) errs.push(required(p.child('kind'), ''));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length > 0) errs.push(invalid(p.child('kind'), kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

function validateVariable(v: Variable, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!v.name || v.name.trim() === '') errs.push(required(p.child('name'), 'name is not specified'));
  else if (!CEL_IDENT.test(v.name) || CEL_RESERVED_WORDS.has(v.name)) errs.push(invalid(p.child('name'), v.name, 'name is not a valid CEL identifier'));
  if (!v.expression || v.expression.trim() === '') errs.push(required(p.child('expression'), 'expression is not specified'));
  return errs;
}

function validateValidation(v: Validation, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if ((v.expression ?? '').trim().length === 0) errs.push(required(p.child('expression'), 'expression is not specified'));
  const me = v.messageExpression ?? '';
  if (me.length > 0 && me.trim().length === 0) errs.push(invalid(p.child('messageExpression'), me, 'must be non-empty if specified'));
  const msg = v.message ?? '';
  if (msg.length > 0 && msg.trim().length === 0) errs.push(invalid(p.child('message'), msg, 'message must be non-empty if specified'));
  else if (/[\n\r]+/.test(msg.trim())) errs.push(invalid(p.child('message'), msg, 'message must not contain line breaks'));
  if (v.reason !== undefined && v.reason !== null && !REASONS.includes(v.reason)) errs.push(notSupported(p.child('reason'), v.reason, REASONS));
  return errs;
}

function validateAuditAnnotation(name: string, a: AuditAnnotation, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length !== 0) errs.push(...validateQualifiedName(`${name}/${a.key}`, p.child('key')));
  else errs.push(invalid(p.child('key'), a.key, 'requires metadata.name be non-empty'));
  const ve = (a.valueExpression ?? '').trim();
  if (ve.length === 0) errs.push(required(p.child('valueExpression'), 'valueExpression is not specified'));
  else if (ve.length > MAX_AUDIT_VALUE_EXPRESSION) errs.push(required(p.child('valueExpression'), `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION} bytes in length`));
  return errs;
}

/** Upstream validateValidatingAdmissionPolicySpec (no CEL compilation). */
function validateValidatingAdmissionPolicy(obj: O<ValidatingAdmissionPolicy>, checkMatchConditions = true): FieldError[] {
  const spec = obj.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(required(SPEC.child('failurePolicy'), ''));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(notSupported(SPEC.child('failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  if (spec.paramKind) errs.push(...validateParamKind(spec.paramKind, SPEC.child('paramKind')));
  if (!spec.matchConstraints) errs.push(required(SPEC.child('matchConstraints'), ''));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, SPEC.child('matchConstraints')));
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) errs.push(required(SPEC.child('matchConstraints', 'resourceRules'), ''));
  }
  if (checkMatchConditions) errs.push(...validateMatchConditions(spec.matchConditions, SPEC.child('matchConditions')));
  (spec.variables ?? []).forEach((v, i) => errs.push(...validateVariable(v, SPEC.child('variables').index(i))));
  const validations = spec.validations ?? [];
  const audits = spec.auditAnnotations ?? [];
  if (validations.length === 0 && audits.length === 0) {
    errs.push(required(SPEC.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(required(SPEC.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(v, SPEC.child('validations').index(i))));
  errs.push(...policyExpressionErrors(spec, SPEC));
  if (spec.auditAnnotations) {
    if (audits.length > MAX_AUDIT_ANNOTATIONS) errs.push(invalid(SPEC.child('auditAnnotations'), audits, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
    const keys = new Set<string>();
    audits.forEach((a, i) => {
      const p = SPEC.child('auditAnnotations').index(i);
      errs.push(...validateAuditAnnotation(obj.metadata.name ?? '', a, p));
      if (keys.has(a.key)) errs.push(duplicate(p.child('key'), a.key));
      keys.add(a.key);
    });
  }
  return errs;
}

/** admissionregistration.k8s.io/v1 validatingadmissionpolicies (and …/status). */
export const validatingAdmissionPolicyDefinition: ResourceDefinition<K<ValidatingAdmissionPolicy>> = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  listKind: 'ValidatingAdmissionPolicyList',
  resource: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  namespaced: false,
  categories: ['api-extensions'],
  schemaRef: 'admissionregistration/v1#ValidatingAdmissionPolicy',
  allowUnconditionalUpdate: true,

  defaults(obj) {
    const spec = (obj.spec ??= {});
    spec.failurePolicy ??= 'Fail';
    defaultMatchResources(spec.matchConstraints);
  },
  prepareForCreate(obj) {
    delete (obj as Mutable<typeof obj>).status;
    mutableMeta(obj).generation = 1;
  },
  prepareForUpdate(obj, old) {
    const o = obj as Mutable<typeof obj>;
    if (old.status === undefined) delete o.status;
    else o.status = clone(old.status);
    const gen = old.metadata.generation ?? 1;
    mutableMeta(obj).generation = jsonEqual(obj.spec ?? null, old.spec ?? null) ? gen : gen + 1;
  },
  validate(obj) {
    return validateValidatingAdmissionPolicy(obj);
  },
  validateUpdate(obj, old) {
    // unchanged paramKind and match conditions are not re-checked (upstream ignoreMatchConditions)
    const same = jsonEqual(obj.spec?.paramKind ?? null, old.spec?.paramKind ?? null) && jsonEqual(obj.spec?.matchConditions ?? null, old.spec?.matchConditions ?? null);
    return validateValidatingAdmissionPolicy(obj, !same);
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = clone(old.spec);
    },
    validateUpdate(obj) {
      const errs: FieldError[] = [];
      (obj.status?.typeChecking?.expressionWarnings ?? []).forEach((w, i) => {
        const p = Path.root('status').child('typeChecking', 'expressionWarnings').index(i);
        if (!w.warning) errs.push(required(p.child('warning'), ''));
        if (!(w.fieldRef ?? '').trim()) errs.push(required(p.child('fieldRef'), ''));
      });
      return errs;
    },
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
      column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
      AGE_COLUMN,
    ],
    cells(obj, now) {
      const pk = obj.spec?.paramKind;
      return [
        obj.metadata.name ?? '',
        (obj.spec?.validations ?? []).length,
        pk ? `${pk.apiVersion ?? ''}/${pk.kind ?? ''}` : '<unset>',
        translateTimestampSince(obj.metadata.creationTimestamp, now),
      ];
    },
  },
};
