/**
 * Custom resources against their CRD's structural `openAPIV3Schema`: validation (types,
 * required, enum, bounds, lengths, pattern, items, formats, nullable,
 * x-kubernetes-int-or-string, x-kubernetes-embedded-resource), pruning of unknown fields
 * and defaulting from `default:`. Errors are field errors with the texts kube-openapi's
 * validator produces as apiextensions-apiserver converts them (`spec.replicas: Invalid
 * value: "string": spec.replicas in body must be of type integer: "string"`).
 *
 * `x-kubernetes-validations` (CEL) and list-type set/map uniqueness are checked by the API
 * server (src/apiserver/apiextensions/validation-rules.ts). Not done here: ratcheting of
 * unchanged values that fail the schema.
 *
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/validation/validation.go
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/validation/errors/schema.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/schema/pruning/algorithm.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/apiserver/schema/defaulting/algorithm.go
 */
import type { CRSchema } from './types.js';
import { type FieldError, invalid, notSupported, required, tooLong, tooMany } from '../../../../apimachinery/field-errors.js';
import { validFormat } from './formats.js';
import { compilePattern } from './pattern.js';
import { OBJECT_META_ORDER } from '../../../../apimachinery/wire-order.js';

export type { CRSchema };

type JSONObject = Record<string, unknown>;

function isObject(v: unknown): v is JSONObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The JSON type name of a value as kube-openapi names it (`integer` for whole numbers). */
export function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    case 'object':
      return 'object';
    default:
      return typeof v;
  }
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return true;
  }
}

/** kube-openapi InvalidType, converted as field.TypeInvalid (the value shown is the value's type name or the string). */
function typeInvalid(path: string, expected: string, shown: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field: path, badValue: shown, detail: `${path} in body must be of type ${expected}: ${JSON.stringify(shown)}` };
}

/** Go's %v of a float64 bound (10 → "10", 1.5 → "1.5", 1e21 → "1e+21"). */
function goFloat(n: number): string {
  const s = String(n);
  return s.includes('e') && !s.includes('e-') && !s.includes('e+') ? s.replace('e', 'e+') : s;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as JSONObject);
  const kb = Object.keys(b as JSONObject);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as JSONObject)[k], (b as JSONObject)[k]));
}

/**
 * Validates `value` at `path` against `s`, appending field errors to `out`.
 * @param path dotted path of the value (`spec.replicas`, `spec.ports[0]`); '' at the root
 */
export function validateValue(s: CRSchema, value: unknown, path: string, out: FieldError[]): void {
  const name = path;
  if (value === null || value === undefined) {
    if (s.nullable) return;
    if (s['x-kubernetes-int-or-string']) out.push(typeInvalid(name, 'integer,string', 'null'));
    else if (s.type) out.push(typeInvalid(name, s.type, 'null'));
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    const ok = typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
    if (!ok) {
      out.push(typeInvalid(name, 'integer,string', jsonTypeOf(value)));
      return;
    }
  } else if (s.type && !typeMatches(s.type, value)) {
    out.push(typeInvalid(name, s.type, jsonTypeOf(value)));
    return;
  }
  if (s.enum && s.enum.length && !s.enum.some((e) => deepEqual(e, value))) {
    out.push(
      notSupported(
        name,
        value,
        s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))),
      ),
    );
  }
  if (typeof value === 'string') validateString(s, value, name, out);
  else if (typeof value === 'number') validateNumber(s, value, name, out);
  else if (Array.isArray(value)) validateArray(s, value, name, out);
  else if (isObject(value)) validateObject(s, value, path, out);
  validateCombinators(s, value, path, out);
}

function validateString(s: CRSchema, v: string, name: string, out: FieldError[]): void {
  if (s.maxLength !== undefined || s.minLength !== undefined) {
    const n = [...v].length;
    if (s.maxLength !== undefined && n > s.maxLength) out.push(tooLong(name, '', s.maxLength));
    if (s.minLength !== undefined && n < s.minLength) out.push(invalid(name, v, `${name} in body should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re && !re.test(v)) out.push(invalid(name, v, `${name} in body should match '${s.pattern}'`));
  }
  if (s.format && !validFormat(s.format, v)) out.push(typeInvalid(name, s.format, v));
}

function validateNumber(s: CRSchema, v: number, name: string, out: FieldError[]): void {
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) out.push(invalid(name, v, `${name} in body should be a multiple of ${goFloat(s.multipleOf)}`));
  }
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
      out.push(invalid(name, v, `${name} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${goFloat(s.maximum)}`));
    }
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
      out.push(invalid(name, v, `${name} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${goFloat(s.minimum)}`));
    }
  }
}

function validateArray(s: CRSchema, v: unknown[], name: string, out: FieldError[]): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) out.push(tooMany(name, v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) out.push(invalid(name, v.length, `${name} in body should have at least ${s.minItems} items`));
  if (s.items) for (let i = 0; i < v.length; i++) validateValue(s.items, v[i], `${name}[${i}]`, out);
}

function validateObject(s: CRSchema, v: JSONObject, path: string, out: FieldError[]): void {
  const child = (k: string): string => (path ? `${path}.${k}` : k);
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) out.push(tooMany(path || '.', n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) out.push(invalid(path || '.', n, `${path || '.'} in body should have at least ${s.minProperties} properties`));
  if (s.required) for (const k of s.required) if (v[k] === undefined) out.push(required(child(k)));
  if (s['x-kubernetes-embedded-resource']) {
    if (typeof v.apiVersion !== 'string' || v.apiVersion === '') out.push(required(child('apiVersion'), 'must not be empty'));
    if (typeof v.kind !== 'string' || v.kind === '') out.push(required(child('kind'), 'must not be empty'));
  }
  const props = s.properties;
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k in v) {
    const ps = props?.[k];
    if (ps) validateValue(ps, v[k], child(k), out);
    else if (ap) validateValue(ap, v[k], child(k), out);
  }
}

function validateCombinators(s: CRSchema, v: unknown, path: string, out: FieldError[]): void {
  const name = path;
  if (s.allOf) for (const sub of s.allOf) validateValue(sub, v, path, out);
  if (s.anyOf?.length) {
    const ok = s.anyOf.some((sub) => {
      const e: FieldError[] = [];
      validateValue(sub, v, path, e);
      return e.length === 0;
    });
    if (!ok) out.push(invalid(name, v, `${name} in body must validate at least one schema (anyOf)`));
  }
  if (s.oneOf?.length) {
    let passed = 0;
    for (const sub of s.oneOf) {
      const e: FieldError[] = [];
      validateValue(sub, v, path, e);
      if (e.length === 0) passed++;
    }
    if (passed !== 1) out.push(invalid(name, v, `${name} in body must validate one and only one schema (oneOf)`));
  }
  if (s.not) {
    const e: FieldError[] = [];
    validateValue(s.not, v, path, e);
    if (e.length === 0) out.push(invalid(name, v, `${name} in body must not validate the schema (not)`));
  }
}

/**
 * Validates a whole custom resource against its version's schema (apiVersion, kind and
 * metadata are the API server's business and not checked here unless the schema names them).
 * @returns field errors in kube-openapi's order, empty when valid
 */
export function validateCustomResource(s: CRSchema, obj: JSONObject): FieldError[] {
  const out: FieldError[] = [];
  const props = s.properties;
  if (s.required) for (const k of s.required) if (obj[k] === undefined) out.push(required(k));
  for (const k in obj) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') {
      if (props?.[k] && k !== 'metadata') validateValue(props[k]!, obj[k], k, out);
      continue;
    }
    const ps = props?.[k];
    if (ps) validateValue(ps, obj[k], k, out);
  }
  return out;
}

function pruneMeta(m: unknown): void {
  if (!isObject(m)) return;
  for (const k of Object.keys(m)) if (!OBJECT_META_ORDER.rank.has(k)) delete m[k]; // everything but ObjectMeta's fields is dropped, as decoding into ObjectMeta does upstream
}

/**
 * Removes fields the schema does not specify (upstream structural pruning), in place.
 * At the root and in `x-kubernetes-embedded-resource` objects, apiVersion, kind and
 * metadata stay (metadata is cut to ObjectMeta's fields); below
 * `x-kubernetes-preserve-unknown-fields: true` unknown fields stay.
 */
export function pruneCustomResource(s: CRSchema, obj: JSONObject): void {
  pruneObject(s, obj, true);
}

/** Prunes a value below the root (a `default:` value) against its schema node, in place. */
export function pruneValue(s: CRSchema, v: unknown): void {
  if (Array.isArray(v)) {
    if (s.items) for (const x of v) pruneValue(s.items, x);
    return;
  }
  if (isObject(v)) pruneObject(s, v, false);
}

function pruneObject(s: CRSchema, obj: JSONObject, root: boolean): void {
  const meta = root || s['x-kubernetes-embedded-resource'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const props = s.properties;
  const ap = s.additionalProperties;
  for (const k of Object.keys(obj)) {
    if (meta && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) {
      if (k === 'metadata') pruneMeta(obj[k]);
      continue;
    }
    const ps = props?.[k];
    if (ps) pruneValue(ps, obj[k]);
    else if (typeof ap === 'object') pruneValue(ap, obj[k]);
    else if (!preserve && ap !== true) delete obj[k];
  }
}

/**
 * Applies `default:` values of the schema where fields are absent (or null without
 * `nullable`), top-down, in place (upstream structural defaulting). Defaults are
 * deep-copied.
 */
export function defaultCustomResource(s: CRSchema, obj: JSONObject): void {
  defaultValue(s, obj);
}

function defaultValue(s: CRSchema, v: unknown): void {
  if (Array.isArray(v)) {
    if (s.items) for (const x of v) defaultValue(s.items, x);
    return;
  }
  if (!isObject(v)) return;
  const props = s.properties;
  if (props) {
    for (const k in props) {
      const ps = props[k]!;
      if (ps.default !== undefined && (v[k] === undefined || (v[k] === null && !ps.nullable))) v[k] = structuredClone(ps.default);
    }
    for (const k in v) {
      const ps = props[k];
      if (ps) defaultValue(ps, v[k]);
    }
  }
  const ap = s.additionalProperties;
  if (typeof ap === 'object') for (const k in v) if (!props?.[k]) defaultValue(ap, v[k]);
}
