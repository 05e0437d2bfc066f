/**
 * A static check cel-go's type checker makes when variables have declared object types
 * (CRD `self` from the schema, a policy's `object` from the matched kind's OpenAPI
 * schema): selecting a field the type does not declare is `undefined field '<name>'`,
 * reported at the selecting dot. The evaluator library checks these variables as `dyn`;
 * this walks the AST for selection chains rooted at the given variables (through `.`,
 * `.?`, and `[…]` into list items and map values) and resolves them with
 * {@link FieldType}s. Use it as {@link CompileOptions.astCheck}.
 *
 * @see https://github.com/google/cel-go/blob/master/checker/checker.go (checkSelect)
 */
import type { CelAstNode } from './program.js';

/** A declared type whose fields can be looked up. */
export interface FieldType {
  /** the field's type; null when the type declares no such field; undefined when unknown (no check below) */
  field(name: string): FieldType | null | undefined;
  /** the element type of a list or the value type of a map (undefined: unknown) */
  element(): FieldType | undefined;
}

type Node = CelAstNode & { pos?: number };

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && typeof (x as CelAstNode).op === 'string' && 'args' in (x as object);
}

/** The astCheck for variables `roots` (variable name → its type). */
export function undefinedFieldCheck(roots: Record<string, FieldType | undefined>): (ast: CelAstNode) => { message: string; start: number } | undefined {
  return (ast) => {
    const seen = new Set<unknown>();
    let found: { message: string; start: number } | undefined;
    const check = (n: Node) => {
      const chain: Node[] = [];
      let cur: Node = n;
      while ((cur.op === '.' || cur.op === '.?' || cur.op === '[]' || cur.op === '[?]') && Array.isArray(cur.args)) {
        chain.unshift(cur);
        cur = cur.args[0] as Node;
      }
      if (cur.op !== 'id' || typeof cur.args !== 'string' || !Object.hasOwn(roots, cur.args)) return;
      let t: FieldType | null | undefined = roots[cur.args];
      for (const sel of chain) {
        if (!t) return;
        if (sel.op === '[]' || sel.op === '[?]') {
          t = t.element();
          continue;
        }
        const name = (sel.args as [unknown, string])[1];
        t = t.field(name);
        if (t === null) {
          const pos = sel.pos ?? sel.range?.start ?? 0;
          found = { message: `undefined field '${name}'`, start: Math.max(0, pos - (sel.op === '.?' ? 2 : 1)) };
          return;
        }
      }
    };
    const walk = (x: unknown) => {
      if (found || seen.has(x)) return;
      seen.add(x);
      if (Array.isArray(x)) {
        for (const y of x) walk(y);
        return;
      }
      if (!isNode(x)) return;
      if (x.op === '.' || x.op === '.?') check(x);
      walk(x.args);
    };
    walk(ast);
    return found;
  };
}
