/**
 * The jq subset kwok's Stage selectors use as `matchExpressions[].key` (kwok evaluates
 * them with gojq): paths `.a.b`, iteration `.a.[]` / `.a[]`, quoted members `.["a.b"]`,
 * pipes `|`, and `select( <path> == <literal> )` / `!=` with string, number, boolean or
 * null literals. A query yields a list of values (jq's stream); a missing member yields
 * `null`, iterating a missing value yields nothing.
 *
 * No npm jq library was usable: @elastic/micro-jq (maintained) has no `select`; the
 * others wrap the C jq or are unmaintained.
 *
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/pkg/utils/expression (the query evaluator)
 * @see https://jqlang.github.io/jq/manual/
 */

type Step = { kind: 'field'; name: string } | { kind: 'iterate' } | { kind: 'select'; path: Step[][]; op: '==' | '!='; value: unknown };

/** A compiled query: `eval(obj)` gives jq's output stream. */
export interface JqQuery {
  readonly source: string;
  eval(input: unknown): unknown[];
}

/** Thrown for queries outside the subset, with the position. */
export class JqSyntaxError extends Error {}

/**
 * Compiles a query.
 * @throws JqSyntaxError when `src` is outside the supported subset
 */
export function compileJq(src: string): JqQuery {
  const p = new Parser(src);
  const pipeline = p.pipeline();
  p.ws();
  if (!p.done()) throw p.error('unexpected input');
  return { source: src, eval: (input) => run(pipeline, [input]) };
}

function run(pipeline: Step[][], inputs: unknown[]): unknown[] {
  let cur = inputs;
  for (const stage of pipeline) {
    for (const step of stage) {
      const next: unknown[] = [];
      for (const v of cur) {
        if (step.kind === 'field') next.push(v !== null && typeof v === 'object' && !Array.isArray(v) ? ((v as Record<string, unknown>)[step.name] ?? null) : null);
        else if (step.kind === 'iterate') {
          if (Array.isArray(v)) next.push(...v);
          else if (v !== null && typeof v === 'object') next.push(...Object.values(v));
        } else {
          const got = run(step.path, [v]);
          const eq = got.some((g) => g === step.value);
          if (step.op === '==' ? eq : !eq) next.push(v);
        }
      }
      cur = next;
    }
  }
  return cur;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }
  error(msg: string): JqSyntaxError {
    return new JqSyntaxError(`jq query ${JSON.stringify(this.s)}: ${msg} at position ${this.i}`);
  }
  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  private eat(t: string): boolean {
    this.ws();
    if (this.s.startsWith(t, this.i)) {
      this.i += t.length;
      return true;
    }
    return false;
  }

  pipeline(): Step[][] {
    const out = [this.term()];
    while (this.eat('|')) out.push(this.term());
    return out;
  }

  private term(): Step[] {
    this.ws();
    if (this.s.startsWith('select', this.i)) {
      this.i += 'select'.length;
      if (!this.eat('(')) throw this.error('expected ( after select');
      const path = this.pipeline();
      const op = this.eat('==') ? '==' : this.eat('!=') ? '!=' : undefined;
      if (!op) throw this.error('expected == or != in select');
      const value = this.literal();
      if (!this.eat(')')) throw this.error('expected )');
      return [{ kind: 'select', path, op, value }];
    }
    return this.path();
  }

  private path(): Step[] {
    this.ws();
    if (this.s[this.i] !== '.') throw this.error('expected a path starting with .');
    const steps: Step[] = [];
    while (this.s[this.i] === '.' || this.s[this.i] === '[') {
      if (this.s[this.i] === '.') this.i++;
      if (this.s.startsWith('[]', this.i)) {
        this.i += 2;
        steps.push({ kind: 'iterate' });
      } else if (this.s[this.i] === '[') {
        this.i++;
        const v = this.literal();
        if (typeof v !== 'string' || !this.eat(']')) throw this.error('expected ["member"]');
        steps.push({ kind: 'field', name: v });
      } else {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
        if (!m) {
          if (steps.length === 0) break; // `.` alone: the input
          throw this.error('expected a member name');
        }
        this.i += m[0].length;
        steps.push({ kind: 'field', name: m[0] });
      }
    }
    return steps;
  }

  private literal(): unknown {
    this.ws();
    const rest = this.s.slice(this.i);
    const m = /^("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(rest);
    if (!m) throw this.error('expected a literal');
    this.i += m[0].length;
    return JSON.parse(m[0]);
  }
}
