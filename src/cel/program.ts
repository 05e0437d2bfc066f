/**
 * Compile once, evaluate many times: the small typed API the admission plugins (ValidatingAdmissionPolicy,
 * webhook matchConditions) and CRD validation rules use.
 *
 * ```ts
 * const r = compile('object.spec.replicas <= 5', { variables: [{ name: 'object' }] });
 * if (!r.program) throw r.error;               // CelError, upstream's "compilation failed: ERROR: …" text
 * const out = r.program.evaluate({ object: deployment }); // JSON in; { value } or { error }
 * ```
 *
 * Evaluation is synchronous; its runtime cost is tracked and limited as upstream's
 * (`PerCallLimit` 1,000,000 by default).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/filter.go
 */
import { type ParseResult, ParseError, TypeError } from '@marcbachmann/cel-js';
import { COST_LIMIT_EXCEEDED, CostLimitExceeded, CostTracker, withCostTracker } from './cost.js';
import { PER_CALL_LIMIT, environmentFor, type VariableDecl } from './environment.js';
import { CelError } from './errors.js';
import { patchAst, prepareAst } from './patch.js';
import { toCel } from './values.js';

/** What {@link compile} needs to know. */
export interface CompileOptions {
  /** the variables the expression may use (type `dyn` unless given) */
  variables: readonly VariableDecl[];
  /** the CEL types the result may have (e.g. `['bool']` for a validation); any when unset */
  resultTypes?: readonly string[];
  /**
   * An extra static check of the type-checked AST (e.g. CRD rules: fields of `self` the
   * schema does not declare); its error is reported as a compile error at `start`.
   */
  astCheck?: (ast: CelAstNode) => { message: string; start: number } | undefined;
}

/** A node of the evaluator library's AST, as {@link CompileOptions.astCheck} sees it. */
export interface CelAstNode {
  op: string;
  args: unknown;
  range?: { start: number; end: number };
}

/** The outcome of {@link compile}: a program, or the error with upstream's text. */
export type CompileResult = { program: CelProgram; error?: undefined } | { program?: undefined; error: CelError };

/** The outcome of {@link CelProgram.evaluate}. */
export interface EvalResult {
  /** the CEL value (bigint for int, number for double, arrays, objects, …) when no error */
  value?: unknown;
  /** the evaluation error: `detail` is cel-go's text (`no such key: x`, `operation cancelled: actual cost limit exceeded`) */
  error?: CelError;
  /** the runtime cost charged, in cel-go cost units */
  cost: number;
}

/** Options of one evaluation. */
export interface EvalOptions {
  /** the cost limit of this evaluation (default {@link PER_CALL_LIMIT}) */
  costLimit?: number;
  /** the activation values are CEL values already (skip the JSON → CEL conversion) */
  celValues?: boolean;
}

/** A compiled expression. Immutable; evaluate it any number of times. */
export class CelProgram {
  /** @internal use {@link compile} */
  constructor(
    /** the expression as written */
    readonly expression: string,
    /** the type the checker deduced (`bool`, `string`, `dyn`, …) */
    readonly outputType: string,
    private readonly parsed: ParseResult,
  ) {}

  /**
   * Evaluates with `activation` (variable name → JSON value, or CEL values with
   * `celValues`). Never throws for CEL errors: they come back as `error`.
   */
  evaluate(activation: Record<string, unknown>, opts: EvalOptions = {}): EvalResult {
    const ctx: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(activation)) ctx[k] = opts.celValues ? v : toCel(v);
    const tracker = new CostTracker(opts.costLimit ?? PER_CALL_LIMIT);
    try {
      const value = withCostTracker(tracker, () => {
        tracker.add(1);
        return this.parsed(ctx);
      });
      if (tracker.exceeded) return { error: new CelError('Invalid', COST_LIMIT_EXCEEDED), cost: tracker.cost };
      return { value, cost: tracker.cost };
    } catch (e) {
      if (e instanceof CostLimitExceeded || tracker.exceeded) return { error: new CelError('Invalid', COST_LIMIT_EXCEEDED), cost: tracker.cost };
      return { error: new CelError('Invalid', evalErrorText(e)), cost: tracker.cost };
    }
  }
}

/** cel-go's wording for the evaluator's runtime errors. */
function evalErrorText(e: unknown): string {
  const msg = e instanceof Error ? ((e as { summary?: string }).summary ?? e.message.split('\n')[0]!) : String(e);
  let m: RegExpExecArray | null;
  if ((m = /^No such key: (.*)$/.exec(msg))) return `no such key: ${m[1]}`;
  if (/^division by zero/.test(msg)) return 'division by zero';
  if (/^modulus by zero/.test(msg)) return 'modulus by zero';
  if (/index out of bounds/.test(msg)) return 'index out of range';
  if (/^integer overflow/.test(msg)) return 'integer overflow';
  if ((m = /^no such overload: (.*)$/.exec(msg))) return `no such overload`;
  return msg;
}

/** cel-go's names of the binary operators. */
const OPERATOR_NAMES: Record<string, string> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
};

/**
 * A compile error as cel-go prints it: `ERROR: <input>:LINE:COL: message`, the source
 * line and a caret under the column.
 */
function compileErrorText(expr: string, e: unknown): string {
  const err = e as { summary?: string; message?: string; range?: { start: number } };
  let msg = err.summary ?? err.message?.split('\n')[0] ?? String(e);
  let m: RegExpExecArray | null;
  if ((m = /^Unknown variable: (.*)$/.exec(msg))) msg = `undeclared reference to '${m[1]}' (in container '')`;
  else if ((m = /^no such overload: (\S+) (\S+) (\S+)$/.exec(msg)) && OPERATOR_NAMES[m[2]!])
    msg = `found no matching overload for '${OPERATOR_NAMES[m[2]!]}' applied to '(${m[1]}, ${m[3]})'`;
  const start = err.range?.start ?? 0;
  const before = expr.slice(0, start);
  const line = before.split('\n').length;
  const col = start - (before.lastIndexOf('\n') + 1);
  const srcLine = expr.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${msg}\n | ${srcLine}\n | ${'.'.repeat(col)}^`;
}

/**
 * Parses and type-checks `expression` against `options.variables`.
 * @returns the program, or a CelError whose detail is upstream's `compilation failed: …`
 *   text (or, for a result of the wrong type, `must evaluate to bool`-style text)
 */
export function compile(expression: string, options: CompileOptions): CompileResult {
  const env = environmentFor(options.variables);
  let parsed: ParseResult;
  try {
    parsed = env.parse(expression);
  } catch (e) {
    if (e instanceof ParseError) return { error: new CelError('Invalid', `compilation failed: ${compileErrorText(expression, e)}`) };
    throw e;
  }
  prepareAst(parsed.ast);
  const checked = parsed.check();
  if (!checked.valid) {
    const e = checked.error;
    if (e instanceof TypeError || e instanceof ParseError) return { error: new CelError('Invalid', `compilation failed: ${compileErrorText(expression, e)}`) };
    return { error: new CelError('Invalid', `compilation failed: ${String(e)}`) };
  }
  const outputType = checked.type ?? 'dyn';
  if (options.resultTypes && outputType !== 'dyn' && !options.resultTypes.includes(outputType))
    return { error: new CelError('Invalid', `must evaluate to ${options.resultTypes.join(' or ')} but got ${outputType}`) };
  const extra = options.astCheck?.(parsed.ast as unknown as CelAstNode);
  if (extra) return { error: new CelError('Invalid', `compilation failed: ${compileErrorText(expression, { summary: extra.message, range: { start: extra.start } })}`) };
  patchAst(parsed.ast);
  return { program: new CelProgram(expression, outputType, parsed) };
}
