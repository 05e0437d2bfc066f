/**
 * List handling of the strategic merge patch: merging lists by merge key, primitive
 * lists with strategy merge, `$patch: replace|delete` list elements, the parallel
 * `$deleteFromPrimitiveList` list, and the element order rules (patch order first,
 * server-only elements kept where the live list had them).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/util/strategicpatch/patch.go
 */
import { goSprint, goSprintS, goTypeName } from './go-format.js';
import { type GoKind, type Json, type JsonObject, goEqual, goKind, isObject, own } from './json-value.js';
import { patchInternal, patchUnprocessable } from './patch-errors.js';
import type { StatusError } from '../errors.js';

export const directiveMarker = '$patch';
export const deleteDirective = 'delete';
export const replaceDirective = 'replace';
export const mergeDirective = 'merge';

/** Recursion back into map merging, supplied by the map walker (avoids an import cycle). */
export type MergeMapFn = (original: JsonObject | null, patch: JsonObject, def: string | undefined) => JsonObject;

// ---- upstream mergepatch error texts (plain Go errors: 500 with no reason) ----

/** mergepatch.ErrBadArgType: `expected a []interface {}, but received a string`. */
export function errBadArgType(expected: 'map' | 'slice', actual: unknown): StatusError {
  const exp = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return patchInternal(`expected a ${exp}, but received a ${goTypeName(actual)}`);
}

/** mergepatch.ErrNoMergeKey: `map: map[image:x] does not contain declared merge key: name`. */
export function errNoMergeKey(m: unknown, key: string): StatusError {
  return patchInternal(`map: ${goSprint(m)} does not contain declared merge key: ${key}`);
}

/** mergepatch.ErrBadPatchType: `unknown patch type: foo in map: map[$patch:foo]`. */
export function errBadPatchType(t: unknown, m: unknown): StatusError {
  return patchInternal(`unknown patch type: ${goSprintS(t)} in map: ${goSprint(m)}`);
}

/** mergepatch.ErrNoListOfLists, answered 422 by the API server. */
export function errNoListOfLists(): StatusError {
  return patchUnprocessable('lists of lists are not supported');
}

/** Go reflect kind shared by every element of the given lists (upstream sliceElementType). */
export function sliceElementType(...lists: (Json[] | undefined)[]): GoKind {
  let prev: GoKind | undefined;
  for (const list of lists) {
    if (!list) continue;
    for (const v of list) {
      const cur = goKind(v);
      if (prev === undefined) {
        // A nil first element makes upstream panic; the API server answers 500.
        if (cur === 'nil') throw patchInternal('runtime error: invalid memory address or nil pointer dereference');
        if (cur === 'slice') throw errNoListOfLists();
        prev = cur;
      } else if (prev !== cur) {
        throw patchInternal(`list element types are not identical: ${goSprint(lists.map((l) => l ?? []))}`);
      }
    }
  }
  if (prev === undefined) throw patchInternal('no elements in any of the given slices');
  return prev;
}

/**
 * Removes `$patch` directives from a value about to be stored: a map carrying `$patch`
 * is dropped entirely. Returns `keep=false` when `v` itself must be dropped. Mutates maps.
 */
export function removeDirectives(v: Json): { value: Json; keep: boolean } {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const item of v) {
      const r = removeDirectives(item);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  if (isObject(v)) {
    if (Object.hasOwn(v, directiveMarker)) return { value: null, keep: false };
    for (const k of Object.keys(v)) {
      const r = removeDirectives(v[k]!);
      if (r.keep) v[k] = r.value;
      else delete v[k];
    }
  }
  return { value: v, keep: true };
}

/** Deletes null-valued keys from every map in `v` (upstream discardNullValuesFromPatch). */
export function discardNullValues(v: Json): void {
  if (Array.isArray(v)) {
    for (const item of v) discardNullValues(item);
  } else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      const x = v[k]!;
      if (x === null) delete v[k];
      else discardNullValues(x);
    }
  }
}

/**
 * What upstream's in-place slice operations leave in the original list's backing array
 * (its first `len(original)` elements) after a merge: deletions shift elements left and
 * appended patch elements fill the freed slots. `$setElementOrder` orders server-only
 * elements against this view, so results match upstream exactly.
 */
export interface AliasView {
  view?: Json[];
}

/** Merges `patch` into `original` for a list field with the given strategy (upstream mergeSliceHandler). */
export function mergeSliceHandler(
  mergeMap: MergeMapFn,
  original: Json,
  patch: Json,
  def: string | undefined,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
  alias?: AliasView,
): Json[] {
  if (!Array.isArray(original)) throw errBadArgType('slice', original);
  if (!Array.isArray(patch)) throw errBadArgType('slice', patch);
  // Delete lists are handled the same way whatever the field's strategy.
  if (strategy === mergeDirective || isDeleteList) return mergeSlice(mergeMap, original, patch, def, mergeKey, isDeleteList, alias);
  return patch;
}

/** Merges two lists of the same element kind (upstream mergeSlice). */
export function mergeSlice(mergeMap: MergeMapFn, original: Json[], patch: Json[], def: string | undefined, mergeKey: string, isDeleteList: boolean, alias?: AliasView): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: Json[];
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = dedupeScalars(original.concat(patch));
  } else {
    if (!mergeKey) throw patchInternal('cannot merge lists without merge key for struct');
    const backing = original.slice();
    const special = mergeSliceWithSpecialElements(backing, patch, mergeKey);
    original = special.original;
    patch = special.patch;
    merged = mergeSliceWithoutSpecialElements(mergeMap, original, patch, mergeKey, def, special.replaced ? undefined : backing);
    if (alias) alias.view = backing;
  }
  const { patchItems, serverOnly } = mergeKey ? partitionMapsByPresentInList(merged, patch, mergeKey) : partitionPrimitivesByPresentInList(merged, patch);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
}

/**
 * Applies `$patch: delete|replace` list elements. Deletions shift `backing` in place as
 * upstream's `append(s[:i], s[i+1:]...)` does; returns the shortened original (a prefix
 * of `backing`, or the replacement list) and the remaining patch.
 */
function mergeSliceWithSpecialElements(backing: Json[], patch: Json[], mergeKey: string): { original: Json[]; patch: Json[]; replaced: boolean } {
  const rest: Json[] = [];
  let len = backing.length;
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.hasOwn(m, directiveMarker)) {
      rest.push(v);
      continue;
    }
    const directive = m[directiveMarker];
    if (directive === deleteDirective) {
      if (!Object.hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      len = deleteMatchingEntries(backing, len, mergeKey, m[mergeKey]!);
    } else if (directive === replaceDirective) {
      replace = true; // keep scanning to prune the other $patch elements
    } else if (directive === mergeDirective) {
      throw patchInternal('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  if (replace) return { original: rest, patch: [], replaced: true };
  return { original: backing.slice(0, len), patch: rest, replaced: false };
}

/** Deletes every map whose merge key equals `value` from `backing[0:len]` in place; returns the new length. */
function deleteMatchingEntries(backing: Json[], len: number, mergeKey: string, value: Json): number {
  for (;;) {
    const i = findMapByKey(backing, mergeKey, value, len);
    if (i < 0) return len;
    backing.copyWithin(i, i + 1, len);
    len--;
  }
}

/**
 * Merges patch maps into their original counterparts, appending new ones. While the
 * list still fits the original's storage, appends also land in `backing` (upstream's
 * `append` writes in place until the capacity runs out).
 */
function mergeSliceWithoutSpecialElements(mergeMap: MergeMapFn, original: Json[], patch: Json[], mergeKey: string, def: string | undefined, backing: Json[] | undefined): Json[] {
  const out = original.slice();
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.hasOwn(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const i = findMapByKey(out, mergeKey, m[mergeKey]!, out.length);
    if (i >= 0) {
      out[i] = mergeMap(out[i] as JsonObject, m, def);
    } else {
      if (backing && out.length < backing.length) backing[out.length] = v;
      else backing = undefined;
      out.push(v);
    }
  }
  return out;
}

/** Index of the first map in `list` whose `key` equals `value`; throws as upstream for a non-map. */
function findMapByKey(list: Json[], key: string, value: Json, len = list.length): number {
  for (let i = 0; i < len; i++) {
    const v = list[i]!;
    if (!isObject(v)) throw patchInternal(`value for key ${i} is not a map`);
    if (Object.hasOwn(v, key) && goEqual(v[key], value)) return i;
  }
  return -1;
}

function deleteFromSlice(current: Json[], toDelete: Json[]): Json[] {
  const del = new Set(toDelete);
  return current.filter((v) => !del.has(v));
}

/** Drops repeated scalars, keeping the first occurrence (the order is normalized afterwards). */
function dedupeScalars(list: Json[]): Json[] {
  return [...new Set(list)];
}

export function partitionPrimitivesByPresentInList(list: Json[], by: Json[]): { patchItems: Json[]; serverOnly: Json[] } {
  for (const v of by) if (typeof v === 'object' && v !== null) throw patchInternal('runtime error: hash of unhashable type');
  const inPatch = new Set(by);
  const patchItems: Json[] = [];
  const serverOnly: Json[] = [];
  for (const v of list) (inPatch.has(v) ? patchItems : serverOnly).push(v);
  return { patchItems, serverOnly };
}

export function partitionMapsByPresentInList(list: Json[], by: Json[], mergeKey: string): { patchItems: Json[]; serverOnly: Json[] } {
  const patchItems: Json[] = [];
  const serverOnly: Json[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType('map', v);
    if (!Object.hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapByKey(by, mergeKey, v[mergeKey]!) >= 0 ? patchItems : serverOnly).push(v);
  }
  return { patchItems, serverOnly };
}

/**
 * Sorts `patch` by `patchOrder` and `serverOnly` by `serverOrder`, then interleaves them:
 * a server-only item goes before a patch item only when the live list had it before that
 * item; patch items unknown to the live list come first (upstream normalizeElementOrder).
 */
export function normalizeElementOrder(patch: Json[], serverOnly: Json[], patchOrder: Json[], serverOrder: Json[], mergeKey: string, kind: GoKind): Json[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function mergeSortedSlice(left: Json[], right: Json[], serverOrder: Json[], mergeKey: string, kind: GoKind): Json[] {
  const out: Json[] = new Array(left.length + right.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) {
    if (i >= left.length) out[k] = right[j++]!;
    else if (j >= right.length) out[k] = left[i++]!;
    else {
      const li = indexIn(serverOrder, left[i]!, mergeKey, kind);
      const ri = indexIn(serverOrder, right[j]!, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out[k] = left[i++]!;
      else out[k] = right[j++]!;
    }
  }
  return out;
}

/** Position of `v` in `list`, comparing merge key values for maps and the items themselves otherwise. */
function indexIn(list: Json[], v: Json, mergeKey: string, kind: GoKind): number {
  if (kind === 'map') {
    const want = isObject(v) ? (own(v, mergeKey) ?? null) : null;
    for (let i = 0; i < list.length; i++) {
      const item = list[i]!;
      const got = isObject(item) ? (own(item, mergeKey) ?? null) : null;
      if (goEqual(want, got)) return i;
    }
    return -1;
  }
  for (let i = 0; i < list.length; i++) if (goEqual(list[i], v)) return i;
  return -1;
}

function normalizeSliceOrder(toSort: Json[], order: Json[], mergeKey: string, kind: GoKind): Json[] {
  const toDelete: Json[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    const keep: Json[] = [];
    for (const v of toSort) {
      if ((v as JsonObject)[directiveMarker] === deleteDirective && Object.hasOwn(v as JsonObject, directiveMarker)) toDelete.push(v);
      else keep.push(v);
    }
    toSort = keep;
  }
  const idx = toSort.map((v) => indexIn(order, v, mergeKey, kind));
  const positions = toSort.map((_, i) => i);
  // Stable sort; upstream's less() says "less" whenever either item is missing from `order`.
  positions.sort((a, b) => {
    const ia = idx[a]!;
    const ib = idx[b]!;
    if (ia >= 0 && ib >= 0) return ia - ib;
    return -1;
  });
  const sorted = positions.map((p) => toSort[p]!);
  return toDelete.length ? sorted.concat(toDelete) : sorted;
}

function validateMergeKeyInLists(mergeKey: string, ...lists: Json[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType('map', item);
      if (!Object.hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}
