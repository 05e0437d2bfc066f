/**
 * A webhook's `matchConditions` (upstream matchconditions.Matcher): CEL expressions over
 * `object`, `oldObject` (null when absent) and `request` (the AdmissionRequest without
 * its objects), evaluated with the CEL library of src/cel in the version the webhook's
 * rule matched. All must be true for the webhook to be called; the first false skips it
 * (even when others failed); errors fail the request with `failurePolicy: Fail`
 * (upstream: Forbidden, `<resource> "<name>" is forbidden: expression '<expr>' resulted
 * in error: <detail>`) and skip the webhook with `Ignore`. The `authorizer` variable is
 * not available (an expression using it does not compile).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/matchconditions/matcher.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/cel/activation.go (Evaluate)
 */
import type { MatchCondition } from 'kubernetes-types/admissionregistration/v1.js';
import { type CelProgram, compile } from '../../../cel/index.js';

/** One compiled condition: the program, or its compilation error text. */
interface CompiledCondition {
  name: string;
  expression: string;
  program?: CelProgram;
  error?: string;
}

const VARIABLES = [{ name: 'object' }, { name: 'oldObject' }, { name: 'request' }];

/** The conditions compiled once per webhook accessor. */
export function compileMatchConditions(conds: readonly MatchCondition[]): CompiledCondition[] {
  return conds.map((c) => {
    const r = compile(c.expression, { variables: VARIABLES, resultTypes: ['bool'] });
    return r.program ? { name: c.name, expression: c.expression, program: r.program } : { name: c.name, expression: c.expression, error: `compilation error: ${r.error.detail}` };
  });
}

/** `matches`, or the error text (Go's aggregate: one error as is, several in brackets). */
export type MatchResult = { matches: boolean; error?: undefined } | { matches?: undefined; error: string };

/**
 * Evaluates the conditions (upstream Match) for one request.
 * @param activation `object`, `oldObject`, `request` as JSON values
 */
export function evaluateMatchConditions(compiled: readonly CompiledCondition[], activation: Record<string, unknown>, failurePolicy: string | undefined): MatchResult {
  const errors: string[] = [];
  for (const c of compiled) {
    if (c.error) {
      errors.push(c.error);
      continue;
    }
    const r = c.program!.evaluate(activation);
    if (r.error) {
      errors.push(`expression '${c.expression}' resulted in error: ${r.error.detail}`);
      continue;
    }
    if (r.value === false) return { matches: false };
  }
  if (!errors.length) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}
