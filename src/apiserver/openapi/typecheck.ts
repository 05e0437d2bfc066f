/**
 * Type checking of built-in objects against their OpenAPI schema, as decoding into
 * upstream's typed Go structs checks them: every field's JSON type, integer ranges
 * (int32/int64), quantities, int-or-string, RFC 3339 times and base64 byte fields.
 * `null` is accepted anywhere (a Go zero value); fields the schema does not declare are
 * left to field validation (unknown-fields.ts).
 *
 * Each schema is compiled once into a tree of {@link TypeNode}s carrying the Go type
 * names the error texts need (`v1.NodeSelector`, `map[string]string`, `[]v1.Container`);
 * checking an object allocates nothing unless it finds a mismatch. The first mismatch
 * in document order is reported, as Go's decoder reports its first saved error.
 *
 * @see https://pkg.go.dev/encoding/json#UnmarshalTypeError
 * @see https://github.com/kubernetes-sigs/json (the decoder kube-apiserver uses)
 */
import type { ResourceDefinition } from '../../api/resource.js';
import { parseQuantity, QuantityParseError } from '../../apimachinery/quantity.js';
import { builtinSchemaName, builtinSchemas, type Schema, type SchemaSet } from './schemas.js';

const REF_PREFIX = '#/components/schemas/';

/** What a value at a position must be. */
export enum Kind {
  Any,
  Struct,
  Map,
  Slice,
  String,
  Int32,
  Int64,
  Bool,
  Float,
  Bytes,
  Quantity,
  IntOrString,
  Time,
}

/** A compiled schema position. */
export interface TypeNode {
  kind: Kind;
  /** Go type as reflect prints it: `v1.PodSpec`, `[]string`, `map[string]string`, `int32` */
  goType: string;
  /** Struct: the Go struct's name (`PodSpec`), which error texts name as the field's owner */
  goName: string;
  /** Struct: declared fields */
  props?: Map<string, TypeNode>;
  /** Map values, Slice items */
  elem?: TypeNode;
}

/**
 * A value of the wrong type, described as both of upstream's decoders need it:
 * encoding/json (`json: cannot unmarshal <value> into Go struct field <struct>.<field> of
 * type <goType>`) and the unstructured converter of strategic merge patches (`cannot
 * restore map from string`). `message` is set instead for errors a type's own
 * UnmarshalJSON returns (quantities, times, base64).
 */
export interface TypeMismatch {
  /** JSON type as encoding/json names it: string, number, bool, array, object; `number 1.5` for an unfit number */
  value: string;
  /** the innermost Go struct around the field (`Container`) */
  struct: string;
  /** the JSON field names from the root, dot-joined (array indices and map keys left out, as Go does) */
  field: string;
  /** the Go type the value should decode into */
  goType: string;
  /** the target's kind */
  target: Kind;
  /** the offending value */
  got: unknown;
  /** the message of a type's own decoder (quantity, time, base64), when it is not a plain type error */
  message?: string;
}

const ANY: TypeNode = { kind: Kind.Any, goType: 'interface {}', goName: '' };
const STRING: TypeNode = { kind: Kind.String, goType: 'string', goName: '' };
const INT32: TypeNode = { kind: Kind.Int32, goType: 'int32', goName: '' };
const INT64: TypeNode = { kind: Kind.Int64, goType: 'int64', goName: '' };
const BOOL: TypeNode = { kind: Kind.Bool, goType: 'bool', goName: '' };
const FLOAT: TypeNode = { kind: Kind.Float, goType: 'float64', goName: '' };
const BYTES: TypeNode = { kind: Kind.Bytes, goType: '[]uint8', goName: '' };

/** definitions decoded by their own UnmarshalJSON (or kept raw) */
const SPECIAL: Record<string, TypeNode> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { kind: Kind.Quantity, goType: 'resource.Quantity', goName: '' },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { kind: Kind.IntOrString, goType: 'intstr.IntOrString', goName: '' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': { kind: Kind.Time, goType: 'v1.Time', goName: '' },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': { kind: Kind.Time, goType: 'v1.MicroTime', goName: '' },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': ANY,
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': ANY,
};

const compiled = new Map<string, TypeNode>();

/** `io.k8s.api.core.v1.NodeSelector` → `v1.NodeSelector` (package name and type name). */
export function goTypeName(definition: string): string {
  const parts = definition.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : definition;
}

function named(name: string, set: SchemaSet): TypeNode {
  const special = SPECIAL[name];
  if (special) return special;
  let n = compiled.get(name);
  if (n) return n;
  const s = set.schemas[name];
  if (!s) return ANY;
  if (!s.properties) {
    // a named scalar, list or map (no struct): its type as it stands
    n = compile(s, set);
    compiled.set(name, n);
    return n;
  }
  const goType = goTypeName(name);
  n = { kind: Kind.Struct, goType, goName: goType.slice(goType.indexOf('.') + 1), props: new Map() };
  compiled.set(name, n); // before the fields, for self-referencing schemas (JSONSchemaProps)
  for (const [k, v] of Object.entries(s.properties as Record<string, Schema>)) n.props!.set(k, compile(v, set));
  return n;
}

function compile(s: Schema, set: SchemaSet): TypeNode {
  if (typeof s.$ref === 'string') return named(s.$ref.slice(REF_PREFIX.length), set);
  const allOf = s.allOf as Schema[] | undefined;
  if (allOf?.length === 1) return compile(allOf[0]!, set);
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return ANY;
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? BYTES : STRING;
    case 'integer':
      return s.format === 'int32' ? INT32 : INT64;
    case 'number':
      return FLOAT;
    case 'boolean':
      return BOOL;
    case 'array': {
      if (!s.items) return ANY;
      const elem = compile(s.items as Schema, set);
      return { kind: Kind.Slice, goType: `[]${elem.goType}`, goName: '', elem };
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap && typeof ap === 'object') {
        const elem = compile(ap as Schema, set);
        return { kind: Kind.Map, goType: `map[string]${elem.goType}`, goName: '', elem };
      }
      return ANY;
    }
    default:
      return ANY;
  }
}

/**
 * The compiled type of a built-in kind, or undefined for kinds without a built-in schema
 * (custom resources: their structural schema validates them). Compiles on first use.
 */
export function typeOfKind(def: Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'schemaRef'>): TypeNode | undefined {
  const hit = byDefinition.get(def);
  if (hit !== undefined) return hit ?? undefined;
  const set = builtinSchemas();
  const name = builtinSchemaName(def, set);
  const n = name ? named(name, set) : undefined;
  const t = n && n.kind === Kind.Struct ? n : undefined;
  byDefinition.set(def, t ?? null);
  return t;
}

/** the compiled type per definition object (null: none), so a request costs one lookup */
const byDefinition = new WeakMap<object, TypeNode | null>();

/** JSON type words of encoding/json's UnmarshalTypeError. */
export function jsonTypeWord(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
/** 2^63 - 1 as a double (which rounds it to 2^63) */
const INT64_LIMIT = 2 ** 63;

/**
 * The first type mismatch of `v` against `node`, in document order, or undefined.
 * @param path the JSON field names down to `v` (mutated while walking, restored after)
 * @param struct the Go struct name around `v`
 */
export function findTypeMismatch(v: unknown, node: TypeNode, path: string[], struct: string): TypeMismatch | undefined {
  if (v === null || v === undefined) return undefined;
  switch (node.kind) {
    case Kind.Any:
      return undefined;
    case Kind.Struct: {
      if (typeof v !== 'object' || Array.isArray(v)) return mismatch(v, node, path, struct);
      const props = node.props!;
      const obj = v as Record<string, unknown>;
      for (const k in obj) {
        const child = props.get(k);
        if (child === undefined || child === ANY) continue;
        path.push(k);
        const m = findTypeMismatch(obj[k], child, path, node.goName);
        path.pop();
        if (m) return m;
      }
      return undefined;
    }
    case Kind.Map: {
      if (typeof v !== 'object' || Array.isArray(v)) return mismatch(v, node, path, struct);
      const elem = node.elem!;
      if (elem === ANY) return undefined;
      const obj = v as Record<string, unknown>;
      for (const k in obj) {
        const m = findTypeMismatch(obj[k], elem, path, struct);
        if (m) return m;
      }
      return undefined;
    }
    case Kind.Slice: {
      if (!Array.isArray(v)) return mismatch(v, node, path, struct);
      const elem = node.elem!;
      if (elem === ANY) return undefined;
      for (let i = 0; i < v.length; i++) {
        const m = findTypeMismatch(v[i], elem, path, struct);
        if (m) return m;
      }
      return undefined;
    }
    case Kind.String:
      return typeof v === 'string' ? undefined : mismatch(v, node, path, struct);
    case Kind.Bool:
      return typeof v === 'boolean' ? undefined : mismatch(v, node, path, struct);
    case Kind.Float:
      return typeof v === 'number' ? undefined : mismatch(v, node, path, struct);
    case Kind.Int32:
      if (typeof v !== 'number') return mismatch(v, node, path, struct);
      return Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX ? undefined : mismatch(v, node, path, struct, `number ${v}`);
    case Kind.Int64:
      if (typeof v !== 'number') return mismatch(v, node, path, struct);
      return Number.isInteger(v) && Math.abs(v) <= INT64_LIMIT ? undefined : mismatch(v, node, path, struct, `number ${v}`);
    case Kind.Bytes: {
      if (typeof v !== 'string') return mismatch(v, node, path, struct);
      const bad = base64Error(v);
      return bad === undefined ? undefined : { ...mismatch(v, node, path, struct), message: `illegal base64 data at input byte ${bad}` };
    }
    case Kind.Quantity: {
      if (typeof v !== 'string' && typeof v !== 'number') {
        return { ...mismatch(v, node, path, struct), message: quantityError(JSON.stringify(v)) };
      }
      const msg = quantityError(typeof v === 'number' ? String(v) : v.trim());
      return msg === undefined ? undefined : { ...mismatch(v, node, path, struct), message: msg };
    }
    case Kind.IntOrString:
      // IntOrString.UnmarshalJSON: a string, else decoded as int32
      if (typeof v === 'string') return undefined;
      return findTypeMismatch(v, INT32, path, struct);
    case Kind.Time: {
      // Time.UnmarshalJSON decodes a string, then parses it as RFC 3339
      if (typeof v !== 'string') return findTypeMismatch(v, STRING, path, struct);
      const msg = timeError(v);
      return msg === undefined ? undefined : { ...mismatch(v, node, path, struct), message: msg };
    }
  }
}

function mismatch(v: unknown, node: TypeNode, path: string[], struct: string, value = jsonTypeWord(v)): TypeMismatch {
  return { value, struct, field: path.join('.'), goType: node.goType, target: node.kind, got: v };
}

function quantityError(s: string): string | undefined {
  try {
    parseQuantity(s);
    return undefined;
  } catch (e) {
    if (e instanceof QuantityParseError) return e.message;
    throw e;
  }
}

const B64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') B64[c.charCodeAt(0)] = 1;

/**
 * Where Go's base64.StdEncoding first fails on `s` (padded standard alphabet, CR/LF
 * ignored): the offset of `CorruptInputError`, or undefined when `s` decodes.
 */
export function base64Error(s: string): number | undefined {
  let n = 0; // significant characters so far
  let quantumStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    if (n % 4 === 0) quantumStart = i;
    if (c === 61 /* = */) {
      const pos = n % 4;
      if (pos < 2) return i;
      n++;
      // after padding only more padding (to the quantum's end) may follow
      for (let j = i + 1; j < s.length; j++) {
        const d = s.charCodeAt(j);
        if (d === 10 || d === 13) continue;
        if (d === 61 && n % 4 !== 0) {
          n++;
          continue;
        }
        return j;
      }
      return n % 4 === 0 ? undefined : quantumStart;
    }
    if (c >= 128 || B64[c] !== 1) return i;
    n++;
  }
  return n % 4 === 0 ? undefined : quantumStart;
}

const RFC3339_LAYOUT = '2006-01-02T15:04:05Z07:00';
/** the layout's elements: [what Go calls it, how many characters / literal] */
const TIME_ELEMS: [string, number | string][] = [
  ['2006', 4],
  ['-', '-'],
  ['01', 2],
  ['-', '-'],
  ['02', 2],
  ['T', 'T'],
  ['15', 2],
  [':', ':'],
  ['04', 2],
  [':', ':'],
  ['05', 2],
];

/**
 * Go's `time.Parse(time.RFC3339, s)` error for `s`, or undefined when it parses
 * (fractional seconds allowed, as Go allows them when parsing).
 */
export function timeError(s: string): string | undefined {
  let i = 0;
  const fail = (elem: string): string => `parsing time ${JSON.stringify(s)} as "${RFC3339_LAYOUT}": cannot parse ${JSON.stringify(s.slice(i))} as "${elem}"`;
  const nums: number[] = [];
  for (const [elem, spec] of TIME_ELEMS) {
    if (typeof spec === 'string') {
      if (s[i] !== spec) return fail(elem);
      i++;
      continue;
    }
    const part = s.slice(i, i + spec);
    if (part.length !== spec || !/^\d+$/.test(part)) return fail(elem);
    nums.push(Number(part));
    i += spec;
  }
  if (s[i] === '.' || s[i] === ',') {
    let j = i + 1;
    while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
    if (j === i + 1) return fail('Z07:00');
    i = j;
  }
  if (s[i] === 'Z') i++;
  else if ((s[i] === '+' || s[i] === '-') && /^\d\d:\d\d$/.test(s.slice(i + 1, i + 6))) i += 6;
  else return fail('Z07:00');
  if (i !== s.length) return `parsing time ${JSON.stringify(s)}: extra text: ${JSON.stringify(s.slice(i))}`;
  const [, month, day, hour, minute, second] = nums as [number, number, number, number, number, number];
  const range = (what: string): string => `parsing time ${JSON.stringify(s)}: ${what} out of range`;
  if (month < 1 || month > 12) return range('month');
  if (day < 1 || day > 31) return range('day');
  if (hour > 23) return range('hour');
  if (minute > 59) return range('minute');
  if (second > 59) return range('second');
  return undefined;
}
