/**
 * Two-variable comprehensions (cel-go `ext.TwoVarComprehensions`): over a list the first
 * variable is the index (int) and the second the element; over a map the first is the key
 * and the second the value.
 *
 * - `<range>.all(i, v, pred)`, `<range>.exists(i, v, pred)`, `<range>.existsOne(i, v, pred)`
 *   (also `exists_one`): quantifiers with the one-variable macros' error rules (`all` and
 *   `exists` absorb errors when another element decides; `existsOne` does not).
 * - `<range>.transformList(i, v, [filter,] expr)` → list of `expr`.
 * - `<range>.transformMap(k, v, [filter,] expr)` → map from the key (or index) to `expr`.
 * - `<range>.transformMapEntry(k, v, [filter,] mapExpr)` → the union of the maps `mapExpr`
 *   returns; a key produced twice is cel-go's `insert failed: key <k> already exists`.
 *
 * Implemented as macros of `@marcbachmann/cel-js` (the library's macro interface: a
 * `typeCheck` over a context with both variables declared, and an `evaluate`).
 *
 * @see https://github.com/google/cel-go/blob/master/ext/comprehensions.go
 */
import { type Environment, ParseError } from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celError } from '../errors.js';

/* The library's internal shapes, as far as these macros use them. */
interface Type {
  kind: string;
  name: string;
  keyType?: Type;
  valueType?: Type;
  isDynOrBool(): boolean;
}
interface Ctx {
  forkWithVariable(name: string, t: Type): Ctx;
  reuse(parent: unknown): Ctx;
  setIterValue(v: unknown, ev: unknown): Ctx;
}
interface Node {
  op: string;
  args: unknown;
}
interface Checker {
  check(n: Node, ctx: Ctx): Type;
  getType(name: string): Type;
  dynType: Type;
  registry: { getListType(t: Type): Type; getMapType(k: Type, v: Type): Type };
  createError(code: string, msg: string, n: Node): Error;
  formatType(t: Type): string;
}
interface Ev {
  run(n: Node, ctx: unknown): unknown;
  tryEval(n: Node, ctx: unknown): unknown;
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

interface Macro {
  kind: Kind;
  name: string;
  receiver: Node;
  var1: string;
  var2: string;
  filter?: Node;
  expr: Node;
  /** the map key type when keys are not strings (the library keeps map literal keys as strings) */
  keyType?: string;
  ctx1?: Ctx;
  ctx2?: Ctx;
  typeCheck(chk: Checker, m: Macro, ctx: Ctx): Type;
  evaluate(ev: Ev, m: Macro, ctx: unknown): unknown;
}

function identifier(n: Node, name: string, which: string): string {
  if (n.op === 'id' && typeof n.args === 'string') return n.args;
  throw new ParseError({ code: 'invalid_macro_argument', message: `${name}() ${which} variable name must be a simple identifier`, node: n } as never);
}

function typeCheck(chk: Checker, m: Macro, ctx: Ctx): Type {
  const range = chk.check(m.receiver, ctx);
  let t1: Type;
  let t2: Type;
  if (range.kind === 'list') {
    t1 = chk.getType('int');
    t2 = range.valueType!;
  } else if (range.kind === 'map') {
    t1 = range.keyType!;
    t2 = range.valueType!;
  } else if (range.kind === 'dyn') {
    t1 = chk.dynType;
    t2 = chk.dynType;
  } else {
    throw chk.createError(
      'invalid_comprehension_range',
      `Expression of type '${chk.formatType(range)}' cannot be range of a comprehension (must be list, map, or dynamic).`,
      m.receiver,
    );
  }
  // an empty literal's element type is a type parameter, which the library's overload resolution cannot use
  if (t1.kind === 'param') t1 = chk.dynType;
  if (t2.kind === 'param') t2 = chk.dynType;
  m.keyType = range.kind === 'map' ? t1.name : undefined;
  m.ctx1 = ctx.forkWithVariable(m.var1, t1);
  m.ctx2 = m.ctx1.forkWithVariable(m.var2, t2);
  if (m.filter) {
    const ft = chk.check(m.filter, m.ctx2);
    if (!ft.isDynOrBool()) throw chk.createError('invalid_macro_argument', `${m.name}() filter must return bool, got '${chk.formatType(ft)}'`, m.filter);
  }
  const et = chk.check(m.expr, m.ctx2);
  switch (m.kind) {
    case 'all':
    case 'exists':
    case 'existsOne':
      if (!et.isDynOrBool()) throw chk.createError('invalid_macro_argument', `${m.name}() predicate must return bool, got '${chk.formatType(et)}'`, m.expr);
      return chk.getType('bool');
    case 'transformList':
      return chk.registry.getListType(et);
    case 'transformMap':
      return chk.registry.getMapType(t1, et);
    case 'transformMapEntry':
      if (et.kind !== 'map' && et.kind !== 'dyn') throw chk.createError('invalid_macro_argument', `${m.name}() expression must return a map, got '${chk.formatType(et)}'`, m.expr);
      return et.kind === 'map' ? et : chk.registry.getMapType(chk.dynType, chk.dynType);
  }
}

/** The (first, second) pairs of a list (index, element) or a map (key, value). */
function pairs(range: unknown, keyType?: string): [unknown, unknown][] {
  if (Array.isArray(range)) return range.map((v, i) => [BigInt(i), v]);
  if (range instanceof Map) return [...range];
  if (range !== null && typeof range === 'object' && (Object.getPrototypeOf(range) === Object.prototype || Object.getPrototypeOf(range) === null)) {
    const entries = Object.entries(range as Record<string, unknown>);
    if (keyType === 'int') return entries.map(([k, v]) => [BigInt(k), v]);
    if (keyType === 'uint') return entries.map(([k, v]) => [new UnsignedInt(BigInt(k)), v]);
    if (keyType === 'bool') return entries.map(([k, v]) => [k === 'true', v]);
    return entries;
  }
  throw celError('no such overload');
}

/** A map result: a plain object while every key is a string (the library's map form), a Map otherwise. */
class MapBuilder {
  private readonly m = new Map<unknown, unknown>();
  private allStrings = true;
  has(k: unknown): boolean {
    return this.m.has(k);
  }
  set(k: unknown, v: unknown): void {
    if (typeof k !== 'string') this.allStrings = false;
    this.m.set(k, v);
  }
  build(): unknown {
    if (!this.allStrings) return this.m;
    const o: Record<string, unknown> = {};
    for (const [k, v] of this.m) Object.defineProperty(o, k as string, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  }
}

function showKey(k: unknown): string {
  return typeof k === 'string' ? k : String(k);
}

function evaluate(ev: Ev, m: Macro, ctx: unknown): unknown {
  const range = ev.run(m.receiver, ctx);
  const items = pairs(range, m.keyType);
  const bind = (k: unknown, v: unknown): Ctx => {
    const c1 = m.ctx1!.reuse(ctx).setIterValue(k, ev);
    return m.ctx2!.reuse(c1).setIterValue(v, ev);
  };
  switch (m.kind) {
    case 'all':
    case 'exists': {
      const decisive = m.kind === 'exists';
      let error: unknown;
      for (const [k, v] of items) {
        const r = ev.tryEval(m.expr, bind(k, v));
        if (r instanceof Error) {
          error ??= r;
          continue;
        }
        if (typeof r !== 'boolean') {
          error ??= celError('no such overload');
          continue;
        }
        if (r === decisive) return decisive;
      }
      if (error) throw error;
      return !decisive;
    }
    case 'existsOne': {
      let n = 0;
      for (const [k, v] of items) {
        const r = ev.run(m.expr, bind(k, v));
        if (typeof r !== 'boolean') throw celError('no such overload');
        if (r) n++;
      }
      return n === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      for (const [k, v] of items) {
        const c = bind(k, v);
        if (m.filter && ev.run(m.filter, c) !== true) continue;
        out.push(ev.run(m.expr, c));
      }
      return out;
    }
    case 'transformMap': {
      const out = new MapBuilder();
      for (const [k, v] of items) {
        const c = bind(k, v);
        if (m.filter && ev.run(m.filter, c) !== true) continue;
        out.set(k, ev.run(m.expr, c));
      }
      return out.build();
    }
    case 'transformMapEntry': {
      const out = new MapBuilder();
      for (const [k, v] of items) {
        const c = bind(k, v);
        if (m.filter && ev.run(m.filter, c) !== true) continue;
        for (const [ek, evv] of pairs(ev.run(m.expr, c))) {
          if (out.has(ek)) throw celError(`insert failed: key ${showKey(ek)} already exists`);
          out.set(ek, evv);
        }
      }
      return out.build();
    }
  }
}

function expander(kind: Kind, name: string, withFilter: boolean) {
  return ({ args, receiver }: { args: Node[]; receiver: Node }): Macro => {
    const var1 = identifier(args[0]!, name, 'first');
    const var2 = identifier(args[1]!, name, 'second');
    if (var1 === var2) throw new ParseError({ code: 'invalid_macro_argument', message: `duplicate variable name: ${var1}`, node: args[1] } as never);
    return {
      kind,
      name,
      receiver,
      var1,
      var2,
      filter: withFilter ? args[2] : undefined,
      expr: withFilter ? args[3]! : args[2]!,
      typeCheck,
      evaluate,
    };
  };
}

/** Registers the two-variable comprehension macros on `env`. */
export function registerComprehensions(env: Environment): void {
  const reg = (sig: string, kind: Kind, name: string, withFilter = false) => env.registerFunction(sig, expander(kind, name, withFilter) as unknown as (...a: unknown[]) => unknown);
  reg('list.all(ast, ast, ast): bool', 'all', 'all');
  reg('list.exists(ast, ast, ast): bool', 'exists', 'exists');
  reg('list.existsOne(ast, ast, ast): bool', 'existsOne', 'existsOne');
  reg('list.exists_one(ast, ast, ast): bool', 'existsOne', 'exists_one');
  reg('list.transformList(ast, ast, ast): list<dyn>', 'transformList', 'transformList');
  reg('list.transformList(ast, ast, ast, ast): list<dyn>', 'transformList', 'transformList', true);
  reg('list.transformMap(ast, ast, ast): map<dyn, dyn>', 'transformMap', 'transformMap');
  reg('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', 'transformMap', 'transformMap', true);
  reg('list.transformMapEntry(ast, ast, ast): map<dyn, dyn>', 'transformMapEntry', 'transformMapEntry');
  reg('list.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', 'transformMapEntry', 'transformMapEntry', true);
}
