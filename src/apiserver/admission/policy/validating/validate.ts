/**
 * Evaluating one compiled ValidatingAdmissionPolicy for one binding and one param:
 * matchConditions, then every validation (with messageExpression), then the audit
 * annotations, into upstream's policy decisions (admit / deny with message and reason,
 * evaluation errors turned into decisions by the failure policy).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go
 */
import { chargeCost } from '../../../../cel/cost.js';
import { celError } from '../../../../cel/errors.js';
import { MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from '../../../../cel/index.js';
import { evaluateMatchConditions } from '../match-conditions.js';
import type { Compiled, CompiledPolicy } from './compile.js';

/** upstream PolicyDecision. */
export interface PolicyDecision {
  action: 'Admit' | 'Deny';
  evaluation: 'Admit' | 'Deny' | 'Error';
  message: string;
  /** the validation's reason (Deny decisions of a failed validation) */
  reason?: string;
}

/** upstream PolicyAuditAnnotation. */
export interface AuditAnnotationResult {
  key: string;
  action: 'Publish' | 'Exclude' | 'Error';
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

/** The CEL activation of one evaluation (CEL values; `variables` is filled in here). */
export type Activation = Record<string, unknown>;

const BUDGET_EXHAUSTED = 'validation failed due to running out of cost budget, no further validation rules will be run';

class OutOfBudget extends Error {}

/** Evaluates expressions against one activation with upstream's shared runtime budget. */
class Evaluation {
  remaining = RUNTIME_CEL_COST_BUDGET;
  constructor(readonly activation: Activation) {}

  /** the result of one expression: value or error text; @throws OutOfBudget */
  run(c: Compiled): { value?: unknown; error?: string } {
    if (!c.program) return { error: c.error?.detail ?? 'unexpected internal error compiling expression' };
    const r = c.program.evaluate(this.activation, { celValues: true, costLimit: PER_CALL_LIMIT });
    if (r.cost > this.remaining) throw new OutOfBudget();
    this.remaining -= r.cost;
    if (r.error) return { error: `expression '${c.expression}' resulted in error: ${r.error.detail}` };
    return { value: r.value };
  }
}

/**
 * Adds `variables` to `activation`: each composited variable evaluated on first use,
 * its cost charged to the expression that uses it.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/composition.go
 */
function withVariables(p: CompiledPolicy, activation: Activation): Activation {
  const vars: Record<string, unknown> = {};
  const act = { ...activation, variables: vars };
  const memo = new Map<string, { value?: unknown; error?: string }>();
  for (const v of p.variables) {
    Object.defineProperty(vars, v.name, {
      enumerable: true,
      get() {
        let r = memo.get(v.name);
        if (r === undefined) {
          if (!v.program) r = { error: `composited variable "${v.name}" fails to compile: ${v.error?.detail}` };
          else {
            const out = v.program.evaluate(act, { celValues: true });
            chargeCost(out.cost);
            r = out.error ? { error: out.error.detail } : { value: out.value };
          }
          memo.set(v.name, r);
        }
        if (r.error !== undefined) throw celError(r.error);
        return r.value;
      },
    });
  }
  return act;
}

/**
 * upstream validator.Validate for one binding and one param.
 * @param failPolicy the policy's failurePolicy (Fail unless Ignore)
 */
export function validatePolicy(p: CompiledPolicy, activation: Activation, failPolicy: 'Fail' | 'Ignore'): ValidateResult {
  const onError: PolicyDecision['action'] = failPolicy === 'Ignore' ? 'Admit' : 'Deny';
  const act = withVariables(p, activation);
  const ev = new Evaluation(act);
  try {
    if (p.matchConditions.length) {
      const m = evaluateMatchConditions(p.matchConditions, act, failPolicy, { run: (c) => ev.run(c) });
      if (m.error !== undefined) return { decisions: [{ action: 'Deny', evaluation: 'Error', message: m.error }], auditAnnotations: [] };
      if (!m.matches) return { decisions: [], auditAnnotations: [] };
    }
    const results = p.validations.map((v) => ev.run(v.condition));
    const decisions: PolicyDecision[] = results.map((r, i) => {
      const v = p.validations[i]!;
      if (r.error !== undefined) return { action: onError, evaluation: 'Error', message: r.error };
      if (r.value === true) return { action: 'Admit', evaluation: 'Admit', message: '' };
      let message = '';
      if (v.message) {
        const m = ev.run(v.message);
        if (m.error === undefined && typeof m.value === 'string') {
          message = m.value.trim();
          if (Buffer.byteLength(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || message.includes('\n')) message = '';
        }
      }
      if (message === '' && v.validation.message) message = v.validation.message.trim();
      if (message === '') message = `failed expression: ${v.validation.expression.trim()}`;
      return { action: 'Deny', evaluation: 'Deny', message, reason: v.validation.reason ?? 'Invalid' };
    });
    const annotations: AuditAnnotationResult[] = p.auditAnnotations.map((a) => {
      const r = ev.run(a);
      if (r.error !== undefined) return failPolicy === 'Ignore' ? { key: a.key, action: 'Exclude' } : { key: a.key, action: 'Error', error: r.error };
      if (r.value === null || r.value === undefined) return { key: a.key, action: 'Exclude' };
      if (typeof r.value !== 'string')
        return {
          key: a.key,
          action: 'Error',
          error: `valueExpression '${a.expression}' resulted in unsupported return type: ${typeof r.value}. Return type must be either string or null.`,
        };
      const value = r.value.trim();
      return value === '' ? { key: a.key, action: 'Exclude' } : { key: a.key, action: 'Publish', value };
    });
    return { decisions, auditAnnotations: annotations };
  } catch (e) {
    if (e instanceof OutOfBudget) return { decisions: [{ action: onError, evaluation: 'Error', message: BUDGET_EXHAUSTED }], auditAnnotations: [] };
    throw e;
  }
}
