/**
 * The parts of cel-go's optional library the evaluator library lacks:
 * `optional.ofNonZeroValue(x)` (none for a zero value: null, false, 0, 0u, 0.0, '',
 * b'', [], {}, a zero duration or the epoch), and the `optMap` / `optFlatMap` macros
 * (`opt.optMap(v, expr)` is `optional.of(expr)` with `v` bound to the value, none when
 * `opt` is none; `optFlatMap`'s expression returns an optional itself).
 *
 * @see https://github.com/google/cel-go/blob/master/cel/library.go (optionalLib)
 */
import { type Environment, Optional, ParseError } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celError } from '../errors.js';

/** cel-go's zero-value test of `optional.ofNonZeroValue`. */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0 || v === 0n) return true;
  if (typeof v === 'number') return Object.is(v, -0);
  if (v instanceof UnsignedInt) return v.valueOf() === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Duration) return String(v) === '0s';
  if (v instanceof Date) return v.getTime() === 0;
  if (v instanceof Optional) return !v.hasValue();
  if (typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) return Object.keys(v).length === 0;
  return false;
}

interface Type {
  kind: string;
  valueType?: Type;
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
  dynType: Type;
  registry: { getOptionalType(t: Type): Type };
  createError(code: string, msg: string, n: Node): Error;
  formatType(t: Type): string;
}
interface Ev {
  run(n: Node, ctx: unknown): unknown;
}
interface OptMacro {
  flat: boolean;
  receiver: Node;
  name: string;
  expr: Node;
  ctx?: Ctx;
  typeCheck(chk: Checker, m: OptMacro, ctx: Ctx): Type;
  evaluate(ev: Ev, m: OptMacro, ctx: unknown): unknown;
}

function optTypeCheck(chk: Checker, m: OptMacro, ctx: Ctx): Type {
  const rt = chk.check(m.receiver, ctx);
  if (rt.kind !== 'optional' && rt.kind !== 'dyn')
    throw chk.createError('invalid_macro_argument', `${m.flat ? 'optFlatMap' : 'optMap'}() receiver must be optional, got '${chk.formatType(rt)}'`, m.receiver);
  m.ctx = ctx.forkWithVariable(m.name, rt.kind === 'optional' ? rt.valueType! : chk.dynType);
  const et = chk.check(m.expr, m.ctx);
  if (!m.flat) return chk.registry.getOptionalType(et);
  if (et.kind !== 'optional' && et.kind !== 'dyn')
    throw chk.createError('invalid_macro_argument', `optFlatMap() expression must return optional, got '${chk.formatType(et)}'`, m.expr);
  return et.kind === 'optional' ? et : chk.registry.getOptionalType(chk.dynType);
}

function optEvaluate(ev: Ev, m: OptMacro, ctx: unknown): unknown {
  const o = ev.run(m.receiver, ctx);
  if (!(o instanceof Optional)) throw celError('no such overload');
  if (!o.hasValue()) return Optional.none();
  const r = ev.run(m.expr, m.ctx!.reuse(ctx).setIterValue(o.value(), ev));
  if (!m.flat) return Optional.of(r);
  if (!(r instanceof Optional)) throw celError('no such overload');
  return r;
}

function optExpander(flat: boolean) {
  return ({ args, receiver }: { args: Node[]; receiver: Node }): OptMacro => {
    const v = args[0]!;
    if (v.op !== 'id' || typeof v.args !== 'string')
      throw new ParseError({ code: 'invalid_macro_argument', message: `${flat ? 'optFlatMap' : 'optMap'}() variable name must be a simple identifier`, node: v } as never);
    return { flat, receiver, name: v.args, expr: args[1]!, typeCheck: optTypeCheck, evaluate: optEvaluate };
  };
}

function num(v: unknown): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

/** CEL equality of two plain values (heterogeneous numbers compare by value), for optionals. */
export function celEquals(a: unknown, b: unknown): boolean {
  const na = num(a);
  const nb = num(b);
  if (na !== undefined || nb !== undefined) {
    if (na === undefined || nb === undefined) return false;
    // biome-ignore lint/suspicious/noDoubleEquals: int (bigint) and double (number) compare by value
    return na == nb;
  }
  if (a instanceof Optional || b instanceof Optional) {
    if (!(a instanceof Optional && b instanceof Optional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration || b instanceof Duration) return a instanceof Duration && b instanceof Duration && String(a) === String(b);
  const plain = (x: unknown) => x !== null && typeof x === 'object' && (x instanceof Map || Object.getPrototypeOf(x) === Object.prototype || Object.getPrototypeOf(x) === null);
  if (plain(a) && plain(b)) {
    const ea = a instanceof Map ? [...a] : Object.entries(a as object);
    const eb = new Map(b instanceof Map ? [...b].map(([k, v]) => [String(k), v]) : Object.entries(b as object));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(String(k)) && celEquals(v, eb.get(String(k))));
  }
  return a === b;
}

/** Registers `optional.ofNonZeroValue`, `optMap` and `optFlatMap` on `env`. */
export function registerOptionals(env: Environment): void {
  env
    .registerOperator('optional == optional', (a: Optional, b: Optional) => celEquals(a, b))
    .registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_ns: unknown, v: unknown) => (isZeroValue(v) ? Optional.none() : Optional.of(v)))
    .registerFunction('optional.optMap(ast, ast): optional<dyn>', optExpander(false) as unknown as (...a: unknown[]) => unknown)
    .registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', optExpander(true) as unknown as (...a: unknown[]) => unknown);
}
