/**
 * CEL compilation of admission configuration expressions at write time, as upstream's
 * validation compiles them (`compilation failed: ERROR: <input>:1:9: …` as a field error
 * on the expression). The `api` folder imports no CEL code: the API server installs the
 * compiler with {@link setExpressionCompiler} (see src/apiserver/admission/policy/expressions.ts);
 * without one, expressions are only checked for presence.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/admissionregistration/validation/validation.go (validateValidation, convertCELErrorToValidationError)
 */
import type { ValidatingAdmissionPolicySpec } from 'kubernetes-types/admissionregistration/v1.js';
import { type FieldError, invalid, type Path } from '../../../apimachinery/field-errors.js';

/** What an expression must evaluate to. */
export type ExpressionResult = 'bool' | 'string' | 'stringOrNull' | 'any';

/** Compiles `expression` with `variables` declared; returns upstream's error detail, or undefined when it compiles. */
export type ExpressionCompiler = (expression: string, variables: readonly string[], result: ExpressionResult) => string | undefined;

let compiler: ExpressionCompiler | undefined;

/** Installs (or, with undefined, removes) the compiler used by {@link expressionErrors}. */
export function setExpressionCompiler(c: ExpressionCompiler | undefined): void {
  compiler = c;
}

/** The field error for an expression that does not compile (none without a compiler or for an empty expression). */
export function expressionErrors(p: Path, expression: string | undefined, variables: readonly string[], result: ExpressionResult): FieldError[] {
  if (!compiler || !expression || expression.trim() === '') return [];
  const detail = compiler(expression.trim(), variables, result);
  return detail === undefined ? [] : [invalid(p, expression.trim(), detail)];
}

/** Every expression of a ValidatingAdmissionPolicy spec compiled with the policy's variables (`params` only with a paramKind). */
export function policyExpressionErrors(spec: ValidatingAdmissionPolicySpec, p: Path): FieldError[] {
  const vars = ['object', 'oldObject', 'request', 'namespaceObject', 'authorizer', 'variables', ...(spec.paramKind ? ['params'] : [])];
  const errs: FieldError[] = [];
  (spec.matchConditions ?? []).forEach((m, i) => errs.push(...expressionErrors(p.child('matchConditions').index(i).child('expression'), m.expression, vars, 'bool')));
  (spec.variables ?? []).forEach((v, i) => errs.push(...expressionErrors(p.child('variables').index(i).child('expression'), v.expression, vars, 'any')));
  (spec.validations ?? []).forEach((v, i) => {
    errs.push(...expressionErrors(p.child('validations').index(i).child('expression'), v.expression, vars, 'bool'));
    errs.push(...expressionErrors(p.child('validations').index(i).child('messageExpression'), v.messageExpression, vars, 'string'));
  });
  (spec.auditAnnotations ?? []).forEach((a, i) =>
    errs.push(...expressionErrors(p.child('auditAnnotations').index(i).child('valueExpression'), a.valueExpression, vars, 'stringOrNull')),
  );
  return errs;
}
