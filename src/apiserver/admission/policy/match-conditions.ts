/**
 * matchConditions (CEL) of admission webhooks and ValidatingAdmissionPolicies, compiled
 * once and evaluated as upstream's `matchconditions.Matcher`: the request matches unless
 * a condition is false; evaluation errors (when no condition is false) fail the request
 * under failurePolicy Fail (joined as an aggregate: one message bare, several
 * `[a, b]`) and skip it under Ignore.
 *
 * For webhooks:
 * ```ts
 * const mc = compileMatchConditions(webhook.matchConditions ?? []);   // once per configuration
 * const r = evaluateMatchConditions(mc, { object, oldObject, request }, webhook.failurePolicy ?? 'Fail');
 * if (r.error !== undefined) … // failurePolicy Fail: refuse with r.error
 * else if (!r.matches) … // skip the webhook (r.failedConditionName says which)
 * ```
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go
 */
import { CelError, type CelProgram, compile, PER_CALL_LIMIT, toCel, type VariableDecl } from '../../../cel/index.js';

/** The variables of a webhook's matchConditions (upstream: object, oldObject, request, authorizer). */
export const WEBHOOK_MATCH_CONDITION_VARIABLES: readonly VariableDecl[] = [{ name: 'object' }, { name: 'oldObject' }, { name: 'request' }, { name: 'authorizer' }];

/** One compiled condition: its program, or why it did not compile. */
export interface CompiledMatchCondition {
  name: string;
  expression: string;
  program?: CelProgram;
  error?: CelError;
}

/** What {@link evaluateMatchConditions} decides. */
export interface MatchConditionsResult {
  /** false when a condition evaluated to false (or errors under Ignore) */
  matches: boolean;
  /** the condition that was false */
  failedConditionName?: string;
  /** the evaluation errors under failurePolicy Fail: upstream's aggregate text */
  error?: string;
}

/**
 * Compiles conditions (each must evaluate to bool). Never throws: a condition that does
 * not compile carries `error` (`compilation error: compilation failed: ERROR: …`) and
 * fails at evaluation like any evaluation error.
 */
export function compileMatchConditions(
  conditions: readonly { name: string; expression: string }[],
  variables: readonly VariableDecl[] = WEBHOOK_MATCH_CONDITION_VARIABLES,
): CompiledMatchCondition[] {
  return conditions.map(({ name, expression }) => {
    const r = compile(expression, { variables, resultTypes: ['bool'] });
    return r.program ? { name, expression, program: r.program } : { name, expression, error: new CelError('Invalid', `compilation error: ${r.error.detail}`) };
  });
}

/**
 * Evaluates compiled conditions against `activation` (variable → JSON value, or CEL
 * values when `celValues`). Each condition is limited to upstream's per-call cost.
 * @param run optional evaluator (the policy plugin passes its budgeted one); returns the value or an error text
 */
export function evaluateMatchConditions(
  conditions: readonly CompiledMatchCondition[],
  activation: Record<string, unknown>,
  failurePolicy: 'Fail' | 'Ignore' | string = 'Fail',
  opts: { celValues?: boolean; run?: (c: CompiledMatchCondition) => { value?: unknown; error?: string } } = {},
): MatchConditionsResult {
  let act = activation;
  if (!opts.celValues && !opts.run) {
    act = {};
    for (const [k, v] of Object.entries(activation)) act[k] = toCel(v);
  }
  const run =
    opts.run ??
    ((c: CompiledMatchCondition) => {
      if (!c.program) return { error: c.error?.detail ?? 'unexpected internal error compiling expression' };
      const r = c.program.evaluate(act, { celValues: true, costLimit: PER_CALL_LIMIT });
      return r.error ? { error: `expression '${c.expression}' resulted in error: ${r.error.detail}` } : { value: r.value };
    });
  const errors: string[] = [];
  for (const c of conditions) {
    const r = run(c);
    if (r.error !== undefined) errors.push(r.error);
    else if (r.value === false) return { matches: false, failedConditionName: c.name };
  }
  if (errors.length === 0) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  return { matches: true, error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}
