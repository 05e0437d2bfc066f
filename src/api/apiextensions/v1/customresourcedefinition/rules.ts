/**
 * The `x-kubernetes-validations` part of CRD validation (upstream
 * ValidateCustomResourceDefinitionOpenAPISchema's CEL checks): every rule and
 * messageExpression is compiled when the CRD is written, and a rule that does not compile
 * refuses the CRD with upstream's text:
 * `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule:
 * Invalid value: apiextensions.ValidationRule{Rule:"…", …}: compilation failed: ERROR: …`;
 * transition rules (oldSelf) under list items that cannot be correlated (lists other than
 * `x-kubernetes-list-type: map`) are refused (`oldSelf cannot be used on the
 * uncorrelatable portion of the schema within <path>`); `reason` must be one of
 * upstream's four.
 *
 * The CEL compiler is installed by the API server ({@link setRuleCompiler}); without it
 * (unit tests of this folder) rules are not compiled.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
 */
import { type FieldError, GoSyntax, goQuote, invalid, notSupported, type Path, required } from '../../../../apimachinery/field-errors.js';
import type { CRSchema } from './types.js';

/** One `x-kubernetes-validations` entry as stored. */
export interface ValidationRuleSpec {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** What the compiler reports for one rule. */
export interface RuleCompileResult {
  /** upstream's error detail of the rule */
  error?: string;
  /** upstream's error detail of the messageExpression */
  messageError?: string;
  /** the rule uses oldSelf */
  usesOldSelf: boolean;
}

/** Compiles a rule for its schema node (`root`: the resource's root schema). */
export type RuleCompiler = (rule: ValidationRuleSpec, schema: CRSchema, root: boolean) => RuleCompileResult;

let compiler: RuleCompiler | undefined;

/** Installs (or removes) the CEL rule compiler. */
export function setRuleCompiler(c: RuleCompiler | undefined): void {
  compiler = c;
}

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** Go's `%#v` of an apiextensions.ValidationRule (pointer fields print as nil or an address placeholder). */
export function goValidationRule(r: ValidationRuleSpec): GoSyntax {
  const ptr = (type: string, set: boolean) => `(*${type})(${set ? '0xc000000000' : 'nil'})`;
  return new GoSyntax(
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, ` +
      `Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason !== undefined)}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf !== undefined)}}`,
  );
}

function rulesOf(s: CRSchema, p: Path, root: boolean, uncorrelatable: Path | undefined, errs: FieldError[]): void {
  const rules = (s['x-kubernetes-validations'] ?? []) as ValidationRuleSpec[];
  rules.forEach((rule, i) => {
    const rp = p.child('x-kubernetes-validations').index(i);
    if ((rule.rule ?? '').trim() === '') errs.push(required(rp.child('rule'), 'rule is not specified'));
    if (rule.message !== undefined && rule.message.length > 0) {
      const m = rule.message.trim();
      if (m === '') errs.push(invalid(rp.child('message'), rule.message, 'message must be non-empty if specified'));
      else if (/[\r\n]/.test(m)) errs.push(invalid(rp.child('message'), rule.message, 'message must not contain line breaks'));
    }
    if (rule.reason !== undefined && !REASONS.includes(rule.reason)) errs.push(notSupported(rp.child('reason'), rule.reason, REASONS));
    if (!compiler) return;
    const c = compiler(rule, s, root);
    if (c.error !== undefined) errs.push(invalid(rp.child('rule'), goValidationRule(rule), c.error));
    if (c.messageError !== undefined) errs.push(invalid(rp.child('messageExpression'), goValidationRule(rule), c.messageError));
    if (c.error === undefined && c.usesOldSelf && uncorrelatable && !rule.optionalOldSelf)
      errs.push(invalid(rp.child('rule'), rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable.toString()}`));
  });
}

function walk(s: CRSchema, p: Path, root: boolean, uncorrelatable: Path | undefined, errs: FieldError[]): void {
  rulesOf(s, p, root, uncorrelatable, errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if (root && k === 'metadata') continue;
    walk(v, p.child('properties').key(k), false, uncorrelatable, errs);
  }
  if (s.items && !Array.isArray(s.items)) walk(s.items, p.child('items'), false, uncorrelatable ?? (s['x-kubernetes-list-type'] === 'map' ? undefined : p), errs);
  if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, p.child('additionalProperties'), false, uncorrelatable, errs);
  (s.allOf ?? []).forEach((sub, i) => rulesOf(sub, p.child('allOf').index(i), root, uncorrelatable, errs));
}

/** The rule errors of a structural schema at `p` (the `openAPIV3Schema` path). */
export function validateValidationRules(schema: CRSchema, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, p, true, undefined, errs);
  return errs;
}
