/**
 * Conversion between the JSON values of Kubernetes objects and CEL values as the
 * evaluator represents them: CEL `int` is a bigint, `double` a number, `uint` the
 * library's UnsignedInt, `list` an array, `map` a plain object or a Map, `null_type` null.
 *
 * Like upstream's unstructured decoding (`k8s.io/apimachinery/pkg/util/json`), a JSON
 * number without a fractional part is an `int` and any other a `double`, unless a
 * schema says the field is `type: number` (see {@link toCelWithSchema}).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apimachinery/pkg/util/json/json.go
 */
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

/** A JSON value as decoded by JSON.parse. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

/** JSON → CEL: integral numbers become `int` (bigint); objects stay plain objects. */
export function toCel(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'string':
    case 'boolean':
    case 'bigint':
      return v;
    case 'object': {
      if (Array.isArray(v)) return v.map(toCel);
      if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) out[k] = toCel(x);
      return out;
    }
    default:
      return v;
  }
}

/** The part of an OpenAPI v3 schema {@link toCelWithSchema} reads. */
export interface CelSchema {
  type?: string;
  properties?: Record<string, CelSchema>;
  additionalProperties?: CelSchema | boolean;
  items?: CelSchema;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

/**
 * JSON → CEL guided by a structural schema: `type: number` fields are `double` even when
 * integral (upstream's `UnstructuredToVal` with the field's DeclType), `type: integer`
 * fields are `int`; parts without a schema fall back to {@link toCel}.
 */
export function toCelWithSchema(v: unknown, s: CelSchema | undefined): unknown {
  if (s === undefined) return toCel(v);
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (s.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toCelWithSchema(x, s.items));
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x === undefined) continue;
      out[k] = toCelWithSchema(x, s.properties?.[k] ?? ap);
    }
    return out;
  }
  return v;
}

/**
 * CEL → JSON (for messages, audit annotations and tests): bigint and uint become numbers
 * when safe (strings otherwise), Maps become objects, an optional its value or null.
 */
export function fromCel(v: unknown): JSONValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof UnsignedInt) return fromCel(v.valueOf());
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), fromCel(x)]));
  if (v instanceof Optional) return v.hasValue() ? fromCel(v.value()) : null;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Duration) return String(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (typeof v === 'object') {
    if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromCel(x)]));
    return String(v);
  }
  return String(v);
}
