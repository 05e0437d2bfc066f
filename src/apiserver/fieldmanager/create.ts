/**
 * The fast path of field tracking for creates (the hot path: pods are created thousands
 * of times per second): one walk over the new object that writes the creator's
 * `fieldsV1` directly, equal to what the general path (compare with the zero object →
 * added ∪ modified → strip → encode) produces, without building intermediate sets.
 *
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/typed/compare.go
 */
import { fieldPE, sortPEs } from './fieldset.js';
import { DEDUCED, type ListType, type MapType, type TypeNode } from './types.js';
import { deepEqual, itemPE, zeroValue } from './walk.js';

type Rec = Record<string, unknown>;
type Out = Record<string, unknown>;

const STRIP_META = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

/**
 * The `fieldsV1` a creator owns for `obj` of root type `t` (metadata system fields,
 * apiVersion and kind left out; `status` too when `dropStatus`). Undefined when it owns nothing.
 */
export function createFieldsV1(obj: Rec, t: MapType, dropStatus: boolean): Out | undefined {
  const keys = Object.keys(obj).sort();
  let out: Out | undefined;
  for (const k of keys) {
    if (k === 'apiVersion' || k === 'kind' || (dropStatus && k === 'status')) continue;
    const v = obj[k];
    if (v === undefined) continue;
    const ft = typeOf(t, k);
    const z = t.zero?.get(k);
    let node: Out | undefined;
    if (k === 'metadata' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      node = metadataFields(v as Rec, ft);
    } else {
      node = encode(z === undefined ? undefined : z === 'null' ? null : zeroValue(ft), v, ft);
    }
    if (node) (out ??= {})[fieldPEOf(k)] = node;
  }
  return out;
}

function metadataFields(m: Rec, t: TypeNode): Out | undefined {
  let out: Out | undefined;
  for (const k of Object.keys(m).sort()) {
    if (STRIP_META.has(k)) continue;
    const v = m[k];
    if (v === undefined) continue;
    const node = encode(undefined, v, typeOf(t, k));
    if (node) (out ??= {})[fieldPEOf(k)] = node;
  }
  return out;
}

/**
 * `f:<k>` for the field names seen (the same few hundred names every create): one lookup
 * instead of a new string that V8 must look up in its string table to use as a key.
 * Bounded: names from user data (labels, annotations, data keys) start it over.
 */
const FIELD_PES = new Map<string, string>();
function fieldPEOf(k: string): string {
  let pe = FIELD_PES.get(k);
  if (pe === undefined) {
    if (FIELD_PES.size >= 4096) FIELD_PES.clear();
    pe = fieldPE(k);
    FIELD_PES.set(k, pe);
  }
  return pe;
}

/** The type of field or key `k` of `t` (no allocation, unlike fieldType). */
function typeOf(t: TypeNode, k: string): TypeNode {
  if (t.kind !== 'map') return DEDUCED;
  return t.fields?.get(k) ?? t.elem ?? DEDUCED;
}

function isObj(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function emptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'object') return false;
  for (const _ in v as Rec) return false;
  return true;
}

/**
 * The owned subtree for new value `r` against old value `l` (undefined: absent):
 * `{}` for a member without children, `{'.': {}, …}` for a member with children,
 * `{…}` for a parent only, undefined when nothing is owned.
 */
function encode(l: unknown, r: unknown, t: TypeNode): Out | undefined {
  if (emptyish(l) && emptyish(r) && !(t.kind === 'map' && t.zero?.size)) return leaf(l, r);
  if (Array.isArray(r)) {
    if (t.kind !== 'list' || t.rel === 'atomic' || (l != null && !Array.isArray(l))) return leaf(l, r);
    return list(l as unknown[] | null | undefined, r, t);
  }
  if (!isObj(r) || (l != null && !isObj(l)) || t.kind === 'scalar' || t.kind === 'list' || (t.kind === 'map' && t.atomic)) return leaf(l, r);
  const lm = l as Rec | null | undefined;
  const member = l === undefined;
  let out: Out | undefined = member ? { '.': EMPTY_MEMBER } : undefined;
  let any = false;
  const keys = Object.keys(r);
  if (keys.length > 1) keys.sort();
  const zero = t.kind === 'map' ? t.zero : undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const ft = typeOf(t, k);
    let lv = lm ? lm[k] : undefined;
    if (lv === undefined && lm && zero?.has(k)) lv = zero.get(k) === 'null' ? null : zeroValue(ft);
    const node = encode(lv, r[k], ft);
    if (node) {
      (out ??= {})[fieldPEOf(k)] = node;
      any = true;
    }
  }
  return member && !any ? {} : out;
}

/** The shared value of `.` entries (never mutated: callers only serialize). */
const EMPTY_MEMBER = Object.freeze({});

function leaf(l: unknown, r: unknown): Out | undefined {
  if (l === undefined || !deepEqual(l, r)) return {};
  return undefined;
}

function list(l: unknown[] | null | undefined, r: unknown[], t: ListType): Out | undefined {
  const pes: string[] = new Array(r.length);
  const seen = new Set<string>();
  for (let i = 0; i < r.length; i++) {
    const pe = itemPE(t, r[i]);
    if (pe === undefined || seen.has(pe)) return leaf(l, r);
    seen.add(pe);
    pes[i] = pe;
  }
  let lIndex: Map<string, unknown> | undefined;
  if (l?.length) {
    lIndex = new Map();
    for (const item of l) {
      const pe = itemPE(t, item);
      if (pe === undefined || lIndex.has(pe)) return leaf(l, r);
      lIndex.set(pe, item);
    }
  }
  let order: (readonly [string, number])[];
  if (r.length > 1) {
    // the items are unique: sort their elements, then find each one's index
    const at = new Map(pes.map((pe, i) => [pe, i] as const));
    order = sortPEs(pes.slice()).map((pe) => [pe, at.get(pe)!] as const);
  } else order = pes.map((pe, i) => [pe, i] as const);
  const member = l === undefined;
  let out: Out | undefined = member ? { '.': EMPTY_MEMBER } : undefined;
  let any = false;
  for (const [pe, i] of order) {
    const node = encode(lIndex?.get(pe), r[i], t.elem);
    if (node) {
      (out ??= {})[pe] = node;
      any = true;
    }
  }
  return member && !any ? {} : out;
}
