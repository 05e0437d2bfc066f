/**
 * Typed walks over objects (structured-merge-diff `typed`): the field set of an applied
 * configuration, the comparison of two versions of an object (added / modified /
 * removed fields), the merge of an applied configuration into a live object, and the
 * removal of fields an applier stopped applying.
 *
 * Values are plain JSON objects; `undefined` means "absent". Lists are associative
 * (items addressed by key or value) or atomic (a leaf) as their TypeNode says.
 *
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/typed/compare.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/typed/merge.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/typed/tofieldset.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/typed/remove.go
 */
import { FieldSet, fieldPE, keyPE, valuePE, indexPE, type JsonValue, type PE } from './fieldset.js';
import { DEDUCED, fieldType, type ListType, type MapType, type TypeNode } from './types.js';

type Rec = Record<string, unknown>;

function isObj(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isEmptyObj(v: Rec): boolean {
  for (const _ in v) return false;
  return true;
}

/** Structural equality of JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!deepEqual((a as Rec)[k], (b as Rec)[k])) return false;
  }
  return true;
}

/** An error in the shape of an applied configuration (duplicate or missing list keys). */
export class ShapeError extends Error {}

/**
 * The path element of a list item, or undefined when the item cannot be addressed
 * (not an object, a key field missing without default, a non-scalar set item).
 */
export function itemPE(t: ListType, item: unknown): PE | undefined {
  if (t.rel === 'set') {
    if (item !== null && typeof item === 'object') return undefined;
    return valuePE(item as JsonValue);
  }
  if (!isObj(item) || !t.keys) return undefined;
  const fields: [string, JsonValue][] = [];
  for (const k of t.keys) {
    let v = item[k] as JsonValue | undefined;
    if (v === undefined || v === null) v = t.keyDefaults?.[k];
    if (v === undefined) return undefined;
    fields.push([k, v]);
  }
  return keyPE(fields);
}

/** Items of an associative list by path element; undefined when some item has no key or keys repeat. */
function indexList(t: ListType, list: unknown[]): Map<PE, number> | undefined {
  const m = new Map<PE, number>();
  for (let i = 0; i < list.length; i++) {
    const pe = itemPE(t, list[i]);
    if (pe === undefined || m.has(pe)) return undefined;
    m.set(pe, i);
  }
  return m;
}

/** Whether the list is replaced as a whole. */
function atomicList(t: TypeNode): boolean {
  return t.kind !== 'list' || t.rel === 'atomic';
}

// ------------------------------------------------------------------ ToFieldSet

/**
 * The fields an applied configuration sets (upstream TypedValue.ToFieldSet): scalars,
 * atomic lists/maps, empty or null values, map keys and list items are members; struct
 * fields holding non-empty values are only parents.
 * @throws ShapeError for list items without their key fields or with duplicate keys
 */
export function toFieldSet(v: unknown, t: TypeNode): FieldSet {
  const out = new FieldSet();
  const path: PE[] = [];
  walkSet(v, t, path, out);
  return out;
}

function walkSet(v: unknown, t: TypeNode, path: PE[], out: FieldSet): void {
  if (Array.isArray(v)) {
    if (t.kind !== 'list' || t.rel === 'atomic') {
      out.insert(path);
      return;
    }
    const seen = new Set<PE>();
    for (let i = 0; i < v.length; i++) {
      const pe = itemPE(t, v[i]);
      if (pe === undefined) {
        const missing = t.keys?.find((k) => isObj(v[i]) && (v[i] as Rec)[k] === undefined && t.keyDefaults?.[k] === undefined);
        throw new ShapeError(
          missing
            ? `element ${i}: associative list with keys has an element that omits key field "${missing}" (and doesn't have default value)`
            : `element ${i}: associative list without keys has an element that's a map type`,
        );
      }
      if (seen.has(pe)) throw new ShapeError(`duplicate entries for key ${pe}`);
      seen.add(pe);
      path.push(pe);
      walkSet(v[i], t.elem, path, out);
      out.insert(path);
      path.pop();
    }
    return;
  }
  if (isObj(v)) {
    if (t.kind === 'scalar' || (t.kind === 'map' && t.atomic) || t.kind === 'list') {
      out.insert(path);
      return;
    }
    for (const k of Object.keys(v)) {
      const cv = v[k];
      const ft = fieldType(t, k);
      path.push(fieldPE(k));
      walkSet(cv, ft.type, path, out);
      if (cv === null || (isObj(cv) && isEmptyObj(cv)) || !ft.named) out.insert(path);
      path.pop();
    }
    return;
  }
  if (v !== null && v !== undefined) out.insert(path);
}

// ------------------------------------------------------------------ Compare

/** The difference between two versions of an object (upstream typed.Comparison). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * Compares `lhs` (old) with `rhs` (new) by type. As in upstream's Go types, objects
 * always hold their non-pointer struct fields (`MapType.zero`): absent ones compare as
 * empty structs (or nulls). With `lhsZero`, `lhs` is the zero value of the type (what
 * upstream compares against on create).
 */
export function compare(lhs: unknown, rhs: unknown, t: TypeNode, lhsZero = false): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  cmp(lhsZero ? zeroValue(t) : lhs, rhs, t, [], c);
  return c;
}

const zeroCache = new WeakMap<MapType, Rec>();

/** The zero value of a type: `{}` with its zero fields (shared and frozen: never mutate). */
export function zeroValue(t: TypeNode): Rec {
  if (t.kind !== 'map' || !t.zero?.size) return EMPTY;
  let z = zeroCache.get(t);
  if (z) return z;
  z = {};
  for (const [k, kind] of t.zero) z[k] = kind === 'null' ? null : zeroValue(fieldType(t, k).type);
  Object.freeze(z);
  zeroCache.set(t, z);
  return z;
}
const EMPTY: Rec = Object.freeze({}) as Rec;

function leaf(l: unknown, r: unknown, path: PE[], c: Comparison): void {
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
  else if (!deepEqual(l, r)) c.modified.insert(path);
}

function emptyish(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : isObj(v) && isEmptyObj(v));
}

function cmp(l: unknown, r: unknown, t: TypeNode, path: PE[], c: Comparison): void {
  if (emptyish(l) && emptyish(r) && !(t.kind === 'map' && t.zero?.size)) return leaf(l, r, path, c);
  const lArr = Array.isArray(l);
  const rArr = Array.isArray(r);
  if (lArr || rArr) {
    if (atomicList(t) || (l != null && !lArr) || (r != null && !rArr)) return leaf(l, r, path, c);
    const lt = t as ListType;
    const li = lArr ? indexList(lt, l as unknown[]) : new Map<PE, number>();
    const ri = rArr ? indexList(lt, r as unknown[]) : new Map<PE, number>();
    if (!li || !ri) return leaf(l, r, path, c);
    for (const [pe, i] of li) {
      const j = ri.get(pe);
      path.push(pe);
      cmp((l as unknown[])[i], j === undefined ? undefined : (r as unknown[])[j], lt.elem, path, c);
      path.pop();
    }
    for (const [pe, j] of ri) {
      if (li.has(pe)) continue;
      path.push(pe);
      cmp(undefined, (r as unknown[])[j], lt.elem, path, c);
      path.pop();
    }
    post(l, r, path, c);
    return;
  }
  const lo = isObj(l);
  const ro = isObj(r);
  if ((!lo && l != null) || (!ro && r != null) || t.kind === 'scalar' || t.kind === 'list' || (t.kind === 'map' && t.atomic)) {
    return leaf(l, r, path, c);
  }
  const lm = lo ? (l as Rec) : undefined;
  const rm = ro ? (r as Rec) : undefined;
  const zero = t.kind === 'map' ? t.zero : undefined;
  if (lm) {
    for (const k in lm) {
      const ft = fieldType(t, k).type;
      let rv = rm?.[k];
      if (rv === undefined && rm && zero?.has(k)) rv = zeroOf(zero, k, ft);
      path.push(fieldPE(k));
      cmp(lm[k], rv, ft, path, c);
      path.pop();
    }
  }
  if (rm) {
    for (const k in rm) {
      if (lm && k in lm) continue;
      const ft = fieldType(t, k).type;
      const lv = lm && zero?.has(k) ? zeroOf(zero, k, ft) : undefined;
      path.push(fieldPE(k));
      cmp(lv, rm[k], ft, path, c);
      path.pop();
    }
  }
  post(l, r, path, c);
}

function zeroOf(zero: ReadonlyMap<string, 'struct' | 'null'>, k: string, t: TypeNode): unknown {
  return zero.get(k) === 'null' ? null : zeroValue(t);
}

/** Non-leaf nodes: newly present ones are added, vanished ones removed. */
function post(l: unknown, r: unknown, path: PE[], c: Comparison): void {
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

// ------------------------------------------------------------------ Merge

/**
 * Merges an applied configuration `r` into `l` (upstream TypedValue.Merge): granular
 * maps and structs key by key, associative lists item by item (live order kept, new
 * items placed as the configuration orders them), everything else replaced by `r`.
 * May reuse (and mutate) parts of both inputs.
 */
export function merge(l: unknown, r: unknown, t: TypeNode): unknown {
  if (r === undefined) return l;
  if (l === undefined || l === null || r === null) return r;
  if (Array.isArray(r)) {
    if (!Array.isArray(l) || atomicList(t) || (l.length === 0 && r.length === 0)) return r;
    return mergeList(l, r, t as ListType);
  }
  if (!isObj(r) || !isObj(l)) return r;
  if (t.kind === 'scalar' || t.kind === 'list' || (t.kind === 'map' && t.atomic)) return r;
  if (isEmptyObj(l) && isEmptyObj(r)) return r;
  for (const k of Object.keys(r)) {
    l[k] = merge(l[k], r[k], fieldType(t, k).type);
  }
  return l;
}

function mergeList(l: unknown[], r: unknown[], t: ListType): unknown[] {
  const li = indexList(t, l);
  const ri = indexList(t, r);
  if (!li || !ri) return r;
  const lPEs = [...li.keys()];
  const rPEs = [...ri.keys()];
  // items of the configuration that also exist live, in the configuration's order
  const shared: PE[] = rPEs.filter((pe) => li.has(pe));
  let si = 0;
  let nextShared: PE | undefined = shared[si++];
  const done = new Set<PE>();
  const out: unknown[] = [];
  let a = 0;
  let b = 0;
  while (a < lPEs.length || b < rPEs.length) {
    if (a < lPEs.length && b < rPEs.length) {
      const pe = lPEs[a]!;
      if (pe === rPEs[b]) {
        done.add(pe);
        out.push(merge(l[li.get(pe)!], r[ri.get(pe)!], t.elem));
        a++;
        b++;
        nextShared = shared[si++];
        continue;
      }
      if (ri.has(pe) && nextShared !== undefined && nextShared !== pe) {
        // a shared item that the configuration places later: wait for it
        a++;
        continue;
      }
    }
    if (a < lPEs.length) {
      const pe = lPEs[a]!;
      if (!ri.has(pe)) {
        out.push(l[li.get(pe)!]);
        a++;
        continue;
      }
      if (done.has(pe)) a++;
    }
    if (b < rPEs.length) {
      const pe = rPEs[b]!;
      done.add(pe);
      const lj = li.get(pe);
      out.push(merge(lj === undefined ? undefined : l[lj], r[ri.get(pe)!], t.elem));
      b++;
      if (nextShared === pe) nextShared = shared[si++];
    }
  }
  return out;
}

// ------------------------------------------------------------------ Removal

/**
 * Removes from `v` (in place) the fields an applier owned (`last`) that nobody owns now
 * (`kept`: every manager's set, the applier's new one included). A named struct field
 * with owned fields below it counts as owned; a removed node takes its subtree with it;
 * maps and lists emptied by removals are removed too (upstream prune with
 * EnsureNamedFieldsAreMembers).
 */
export function removeUnowned(v: unknown, t: TypeNode, last: FieldSet, kept: FieldSet | undefined): void {
  if (!last.children) return;
  if (Array.isArray(v)) {
    const lt = t.kind === 'list' ? t : undefined;
    const idx = new Map<PE, number>();
    for (let i = 0; i < v.length; i++) {
      const pe = lt && lt.rel !== 'atomic' ? itemPE(lt, v[i]) : indexPE(i);
      if (pe !== undefined && !idx.has(pe)) idx.set(pe, i);
    }
    const drop: number[] = [];
    for (const [pe, lc] of last.children) {
      const i = idx.get(pe);
      if (i === undefined) continue;
      const kc = kept?.child(pe);
      if (lc.member && !kc?.member) drop.push(i);
      else if (lc.children && v[i] !== null && typeof v[i] === 'object') removeUnowned(v[i], lt?.elem ?? DEDUCED, lc, kc);
    }
    drop.sort((x, y) => y - x);
    for (const i of drop) v.splice(i, 1);
    return;
  }
  if (!isObj(v)) return;
  for (const [pe, lc] of last.children) {
    if (pe.charCodeAt(0) !== 102 /* f */) continue;
    const k = pe.slice(2);
    if (!(k in v)) continue;
    const ft = fieldType(t, k);
    const kc = kept?.child(pe);
    const inLast = lc.member || (ft.named && !lc.isEmpty());
    const inKept = !!kc && (kc.member || (ft.named && !kc.isEmpty()));
    if (inLast && !inKept) {
      delete v[k];
      continue;
    }
    const cv = v[k];
    if (lc.children && cv !== null && typeof cv === 'object') {
      const before = Array.isArray(cv) ? cv.length : Object.keys(cv).length;
      removeUnowned(cv, ft.type, lc, kc);
      const after = Array.isArray(cv) ? cv.length : Object.keys(cv).length;
      if (before > 0 && after === 0) delete v[k];
    }
  }
}

/** Re-exported for callers that build types by hand (tests). */
export type { MapType, ListType, TypeNode };
