/**
 * Replaces built-in functions of the evaluator library whose behaviour differs from
 * CEL's specification and cannot be re-registered (the library refuses overlapping
 * overloads): `matches` uses JavaScript regular expressions there, CEL requires RE2.
 * After type checking, each call node of such a function gets an evaluate function of
 * its own that evaluates the operands through the evaluator (so cost is tracked) and
 * applies the RE2 implementation.
 */
import { celError } from './errors.js';
import { compileRE2 } from './library/regex.js';
import { chargeCost, traversalCost } from './cost.js';

interface Evaluator {
  run(ast: unknown, ctx: unknown): unknown;
}
interface Node {
  op: string;
  args: unknown;
  evaluate?: (ev: Evaluator, ast: Node, ctx: unknown) => unknown;
}

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in (x as object);
}

function re2Matches(s: unknown, p: unknown): boolean {
  if (typeof s !== 'string' || typeof p !== 'string') throw celError('no such overload');
  chargeCost(traversalCost(s.length) * Math.max(1, traversalCost(p.length)));
  return compileRE2(p).test(s);
}

interface CheckedNode extends Node {
  checkedType?: { name: string };
  check(chk: unknown, ast: unknown, ctx: unknown): { name: string };
  left?: CheckedNode;
  right?: CheckedNode;
}

/**
 * Before type checking: a conditional whose branches are `null` and another type
 * (`c ? 'x' : null`) has the other branch's type, as cel-go's checker accepts it (its
 * type parameter binds to the more general of the two); the library refuses it.
 */
export function prepareAst(ast: unknown, seen = new Set<unknown>()): void {
  if (seen.has(ast)) return;
  seen.add(ast);
  if (Array.isArray(ast)) {
    for (const x of ast) prepareAst(x, seen);
    return;
  }
  if (!isNode(ast)) return;
  if (ast.op === '?:') {
    const node = ast as CheckedNode;
    const check = node.check;
    Object.defineProperty(node, 'check', {
      value(chk: unknown, a: unknown, ctx: unknown) {
        try {
          return check.call(node, chk, a, ctx);
        } catch (e) {
          const l = node.left?.checkedType;
          const r = node.right?.checkedType;
          if ((e as { code?: string }).code === 'incompatible_ternary_branches' && l && r) {
            if (l.name === 'null') return r;
            if (r.name === 'null') return l;
          }
          throw e;
        }
      },
      writable: true,
      configurable: true,
    });
  }
  prepareAst(ast.args, seen);
}

/** Walks `ast` and installs the replacements. Idempotent. */
export function patchAst(ast: unknown, seen = new Set<unknown>()): void {
  if (seen.has(ast)) return;
  seen.add(ast);
  if (Array.isArray(ast)) {
    for (const x of ast) patchAst(x, seen);
    return;
  }
  if (!isNode(ast)) return;
  const a = ast.args;
  if (ast.op === 'rcall' && Array.isArray(a) && a[0] === 'matches' && Array.isArray(a[2]) && a[2].length === 1) {
    const recv = a[1] as Node;
    const arg = (a[2] as Node[])[0]!;
    Object.defineProperty(ast, 'evaluate', { value: (ev: Evaluator, _n: Node, ctx: unknown) => re2Matches(ev.run(recv, ctx), ev.run(arg, ctx)), writable: true });
  } else if (ast.op === 'call' && Array.isArray(a) && a[0] === 'matches' && Array.isArray(a[1]) && a[1].length === 2) {
    const [s, p] = a[1] as Node[];
    Object.defineProperty(ast, 'evaluate', { value: (ev: Evaluator, _n: Node, ctx: unknown) => re2Matches(ev.run(s, ctx), ev.run(p, ctx)), writable: true });
  }
  patchAst(a, seen);
}
