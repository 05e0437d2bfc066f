/**
 * The Kubernetes CEL `lists` library: `<list<T>>.isSorted()`, `sum()`, `min()`, `max()`,
 * `indexOf(T)`, `lastIndexOf(T)` on comparable element types (int, uint, double, bool,
 * string, bytes, duration, timestamp); and the cel-go `sets` extension:
 * `sets.contains`, `sets.equivalent`, `sets.intersects`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/lists.go
 * @see https://github.com/google/cel-go/blob/master/ext/sets.go
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { chargeCost } from '../cost.js';
import { celError } from '../errors.js';

/** The element types lists.go declares its comparisons for. */
const COMPARABLE = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'google.protobuf.Duration', 'google.protobuf.Timestamp'] as const;
/** The element types `sum` is declared for (with their zero value). */
const SUMMABLE = ['int', 'uint', 'double', 'google.protobuf.Duration'] as const;

function key(v: unknown): number | bigint | string | boolean {
  if (v instanceof UnsignedInt) return v.valueOf();
  if (v instanceof Duration) return v.seconds * 1_000_000_000n + BigInt(v.nanos);
  if (v instanceof Date) return v.getTime();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('latin1');
  return v as number | bigint | string | boolean;
}

function compare(a: unknown, b: unknown): number {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** CEL equality for the values these functions compare. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof a === 'number' || a instanceof UnsignedInt) {
    if (!(typeof b === 'bigint' || typeof b === 'number' || b instanceof UnsignedInt)) return false;
    const x = a.valueOf();
    const y = b.valueOf();
    return typeof x === 'bigint' && typeof y === 'bigint' ? x === y : Number(x) === Number(y);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Uint8Array) return b instanceof Uint8Array && key(a) === key(b);
  if (a instanceof Date || a instanceof Duration) return b.constructor === a.constructor && key(a) === key(b);
  if (a instanceof Map || b instanceof Map) {
    const ea = a instanceof Map ? [...a] : Object.entries(a);
    const mb = b instanceof Map ? b : new Map(Object.entries(b));
    return ea.length === mb.size && ea.every(([k, v]) => mb.has(k) && celEquals(v, mb.get(k)));
  }
  if (Object.getPrototypeOf(a) === Object.prototype && Object.getPrototypeOf(b) === Object.prototype) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && celEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return String(a) === String(b) && a.constructor === b.constructor;
}

function zero(t: (typeof SUMMABLE)[number]): unknown {
  switch (t) {
    case 'int':
      return 0n;
    case 'uint':
      return new UnsignedInt(0n);
    case 'double':
      return 0;
    default:
      return new Duration(0n, 0);
  }
}

function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint') {
    const r = a + (b as bigint);
    if (r > (1n << 63n) - 1n || r < -(1n << 63n)) throw celError('integer overflow');
    return r;
  }
  if (a instanceof UnsignedInt) return new UnsignedInt(a.valueOf() + (b as UnsignedInt).valueOf());
  if (a instanceof Duration) return a.addDuration(b as Duration);
  return (a as number) + (b as number);
}

/** Registers lists and sets on `env`. */
export function registerLists(env: Environment): void {
  for (const t of COMPARABLE) {
    env
      .registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => {
        chargeCost(l.length);
        for (let i = 1; i < l.length; i++) if (compare(l[i - 1], l[i]) > 0) return false;
        return true;
      })
      .registerFunction(`list<${t}>.min(): ${t}`, (l: unknown[]) => {
        chargeCost(l.length);
        if (l.length === 0) throw celError('min called on empty list');
        return l.reduce((m, x) => (compare(x, m) < 0 ? x : m));
      })
      .registerFunction(`list<${t}>.max(): ${t}`, (l: unknown[]) => {
        chargeCost(l.length);
        if (l.length === 0) throw celError('max called on empty list');
        return l.reduce((m, x) => (compare(x, m) > 0 ? x : m));
      });
  }
  for (const t of SUMMABLE)
    env.registerFunction(`list<${t}>.sum(): ${t}`, (l: unknown[]) => {
      chargeCost(l.length);
      return l.reduce((s, x) => add(s, x), zero(t));
    });
  env
    .registerFunction('list<A>.indexOf(A): int', (l: unknown[], x: unknown) => {
      chargeCost(l.length);
      return BigInt(l.findIndex((y) => celEquals(y, x)));
    })
    .registerFunction('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
      chargeCost(l.length);
      for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
      return -1n;
    });
  registerSets(env);
}

/** Namespace object for `sets.…`. */
class SetsNamespace {}

function registerSets(env: Environment): void {
  const contains = (a: unknown[], b: unknown[]) => {
    chargeCost(a.length * b.length);
    return b.every((x) => a.some((y) => celEquals(x, y)));
  };
  env
    .registerType('kubernetes.SetsNamespace', SetsNamespace)
    .registerConstant('sets', 'kubernetes.SetsNamespace', new SetsNamespace())
    .registerFunction('kubernetes.SetsNamespace.contains(list<A>, list<A>): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => contains(a, b))
    .registerFunction('kubernetes.SetsNamespace.equivalent(list<A>, list<A>): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a))
    .registerFunction('kubernetes.SetsNamespace.intersects(list<A>, list<A>): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => {
      chargeCost(a.length * b.length);
      return a.some((x) => b.some((y) => celEquals(x, y)));
    });
}
