/**
 * Runs the CEL specification's conformance tests (cel-spec `tests/simple/testdata`,
 * as published in the npm package `@bufbuild/cel-spec`, `testdata/conformance.js`)
 * against k8ts' CEL environment and reports, per test, whether it passed and why not.
 *
 * A test passes when the expression compiles and evaluates to the expected value (CEL
 * equality with exact types: int, uint and double are told apart), or fails with an error
 * when an error is expected; `checkOnly` tests compare the deduced type.
 *
 * @see https://github.com/google/cel-spec/tree/master/tests/simple/testdata
 */
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { compile } from '../program.js';

/** One test's outcome. */
export interface ConformanceOutcome {
  /** `section/subsection/name` */
  id: string;
  pass: boolean;
  /** why it failed */
  why?: string;
}

type J = Record<string, unknown>;

class Unsupported extends Error {}

const PRIMITIVES: Record<string, string> = { BOOL: 'bool', INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BYTES: 'bytes' };

/** A cel.expr.Type (JSON) as the checker names types. */
function typeName(t: J | undefined): string {
  if (!t) return 'dyn';
  if (typeof t.primitive === 'string') return PRIMITIVES[t.primitive] ?? 'dyn';
  if ('dyn' in t) return 'dyn';
  if ('null' in t) return 'null';
  if (t.wellKnown === 'DURATION') return 'google.protobuf.Duration';
  if (t.wellKnown === 'TIMESTAMP') return 'google.protobuf.Timestamp';
  if (t.listType) return `list<${typeName((t.listType as J).elemType as J)}>`;
  if (t.mapType) return `map<${typeName((t.mapType as J).keyType as J)}, ${typeName((t.mapType as J).valueType as J)}>`;
  if (typeof t.messageType === 'string') return t.messageType;
  if (t.type) return 'type';
  if (t.abstractType && (t.abstractType as J).name === 'optional_type') return `optional<${typeName(((t.abstractType as J).parameterTypes as J[])[0])}>`;
  throw new Unsupported(`type ${JSON.stringify(t)}`);
}

/** A cel.expr.Value (JSON) as a CEL value of the evaluator. */
function value(v: J): unknown {
  if ('int64Value' in v) return BigInt(v.int64Value as string);
  if ('uint64Value' in v) return new UnsignedInt(BigInt(v.uint64Value as string));
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(v.bytesValue as string, 'base64'));
  if ('nullValue' in v) return null;
  if ('listValue' in v) return (((v.listValue as J).values as J[] | undefined) ?? []).map(value);
  if ('mapValue' in v) return new Map((((v.mapValue as J).entries as J[] | undefined) ?? []).map((e) => [value(e.key as J), value(e.value as J)]));
  if ('typeValue' in v) return { typeName: v.typeValue };
  throw new Unsupported(`value ${Object.keys(v)[0]}`);
}

function isType(x: unknown): x is { name: string } {
  return typeof x === 'object' && x !== null && x.constructor?.name === 'Type';
}

/** Strict CEL equality (types must agree) between an evaluated and an expected value. */
function same(a: unknown, e: unknown): boolean {
  if (e !== null && typeof e === 'object' && 'typeName' in (e as J)) return isType(a) && a.name === (e as J).typeName;
  if (typeof e === 'bigint') return typeof a === 'bigint' && a === e;
  if (e instanceof UnsignedInt) return a instanceof UnsignedInt && a.valueOf() === e.valueOf();
  if (typeof e === 'number') return typeof a === 'number' && (Object.is(a, e) || a === e || (Number.isNaN(a) && Number.isNaN(e)));
  if (typeof e === 'string' || typeof e === 'boolean' || e === null) return a === e;
  if (e instanceof Uint8Array) return a instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(e));
  if (Array.isArray(e)) return Array.isArray(a) && a.length === e.length && a.every((x, i) => same(x, e[i]));
  if (e instanceof Map) {
    const entries: [unknown, unknown][] = a instanceof Map ? [...a] : a && typeof a === 'object' && !Array.isArray(a) ? Object.entries(a) : [];
    if (!(a instanceof Map) && !(a && typeof a === 'object' && Object.getPrototypeOf(a) === Object.prototype)) return false;
    if (entries.length !== e.size) return false;
    return [...e].every(([k, v]) => entries.some(([k2, v2]) => same(k2, k) && same(v2, v)));
  }
  return false;
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof UnsignedInt) return `${v.valueOf()}u`;
  if (isType(v)) return `type(${v.name})`;
  if (v instanceof Optional) return v.hasValue() ? `optional(${show(v.value())})` : 'optional.none';
  if (v instanceof Duration || v instanceof Date) return `${v.constructor.name}(${String(v)})`;
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${show(k)}: ${show(x)}`).join(', ')}}`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join(', ')}}`;
  return JSON.stringify(v) ?? String(v);
}

function runOne(o: J): { pass: boolean; why?: string } {
  const expr = o.expr as string;
  if (o.container) return { pass: false, why: `container ${String(o.container)} (namespaced names are not supported)` };
  const variables: { name: string; type: string }[] = [];
  for (const d of (o.typeEnv as J[] | undefined) ?? []) if (d.ident) variables.push({ name: d.name as string, type: typeName((d.ident as J).type as J) });
  const activation: Record<string, unknown> = {};
  for (const [k, b] of Object.entries((o.bindings as J | undefined) ?? {})) {
    activation[k] = value((b as J).value as J);
    if (!variables.some((v) => v.name === k)) variables.push({ name: k, type: 'dyn' });
  }
  const r = compile(expr, { variables });
  const wantsError = 'evalError' in o;
  if (!r.program) return wantsError ? { pass: true } : { pass: false, why: r.error.detail.split('\n')[0] };
  if (o.checkOnly) {
    const want = typeName(((o.typedResult as J | undefined)?.deducedType as J) ?? undefined);
    return r.program.outputType === want ? { pass: true } : { pass: false, why: `type ${r.program.outputType}, want ${want}` };
  }
  if (o.typedResult && (o.typedResult as J).deducedType) {
    const want = typeName((o.typedResult as J).deducedType as J);
    if (r.program.outputType !== want && r.program.outputType !== 'dyn') return { pass: false, why: `type ${r.program.outputType}, want ${want}` };
  }
  const out = r.program.evaluate(activation, { celValues: true });
  if (wantsError) return out.error ? { pass: true } : { pass: false, why: `value ${show(out.value)}, want an error` };
  if (out.error) return { pass: false, why: out.error.detail.split('\n')[0] };
  const want = o.value ?? (o.typedResult as J | undefined)?.result ?? { boolValue: true };
  const expected = value(want as J);
  return same(out.value, expected) ? { pass: true } : { pass: false, why: `value ${show(out.value)}, want ${show(expected)}` };
}

interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: J }[];
}

/** Runs every conformance test; the outcomes in the data's order. */
export function runConformance(): ConformanceOutcome[] {
  const out: ConformanceOutcome[] = [];
  const walk = (s: Suite, path: string) => {
    for (const t of s.tests ?? []) {
      const id = `${path}/${String(t.original.name ?? t.original.expr)}`;
      try {
        out.push({ id, ...runOne(t.original) });
      } catch (e) {
        out.push({ id, pass: false, why: e instanceof Unsupported ? `unsupported ${e.message}` : `threw ${(e as Error).message.split('\n')[0]}` });
      }
    }
    for (const c of s.suites ?? []) walk(c, path ? `${path}/${c.name}` : c.name);
  };
  walk(tests as Suite, '');
  return out;
}
