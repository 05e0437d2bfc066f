/**
 * A ValidatingAdmissionPolicy compiled once per resourceVersion: its matchConditions,
 * variables, validations (expression and messageExpression) and auditAnnotations as CEL
 * programs over upstream's variables (`object`, `oldObject`, `request`, `params`,
 * `namespaceObject`, `authorizer`, `variables`). An expression that does not compile is
 * kept with its error: evaluating it yields upstream's `compilation error: …` result.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/plugin.go (compilePolicy)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/composition.go
 */
import type { AuditAnnotation, Validation, ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { type CelProgram, CelError, compile, type VariableDecl } from '../../../../cel/index.js';
import { AUTHORIZER_TYPE } from '../../../../cel/library/authz.js';
import { type CompiledMatchCondition, compileMatchConditions } from '../match-conditions.js';

/** The variables every policy expression may use. */
export const POLICY_VARIABLES: readonly VariableDecl[] = [
  { name: 'object' },
  { name: 'oldObject' },
  { name: 'request' },
  { name: 'params' },
  { name: 'namespaceObject' },
  { name: 'authorizer', type: AUTHORIZER_TYPE },
  { name: 'variables' },
];

/** A compiled expression, or why it did not compile (upstream's `compilation error: …` detail). */
export interface Compiled {
  expression: string;
  program?: CelProgram;
  error?: CelError;
}

export interface CompiledValidation {
  validation: Validation;
  condition: Compiled;
  message?: Compiled;
}

export interface CompiledPolicy {
  policy: ValidatingAdmissionPolicy;
  matchConditions: CompiledMatchCondition[];
  variables: (Compiled & { name: string })[];
  validations: CompiledValidation[];
  auditAnnotations: (Compiled & { key: string })[];
}

function compileOne(expression: string, resultTypes?: string[]): Compiled {
  const r = compile(expression, { variables: POLICY_VARIABLES, resultTypes });
  if (r.program) return { expression, program: r.program };
  return { expression, error: new CelError('Invalid', `compilation error: ${r.error.detail}`) };
}

/** Compiles every expression of `policy`. Never throws. */
export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  return {
    policy,
    matchConditions: compileMatchConditions(spec.matchConditions ?? [], POLICY_VARIABLES),
    variables: (spec.variables ?? []).map((v) => ({ name: v.name, ...compileOne(v.expression) })),
    validations: (spec.validations ?? []).map((v) => ({
      validation: v,
      condition: compileOne(v.expression, ['bool']),
      message: v.messageExpression ? compileOne(v.messageExpression, ['string']) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a: AuditAnnotation) => ({ key: a.key, ...compileOne(a.valueExpression, ['string', 'null']) })),
  };
}
