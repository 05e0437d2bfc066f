/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), applied as
 * kube-apiserver applies it: maps merge key by key (null deletes), lists merge by
 * their `patchMergeKey` or as sets of primitives when the field's `patchStrategy` is
 * merge, other lists are replaced; directives `$patch: replace|delete` (maps and list
 * elements), `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>` are honoured; errors carry the API server's status codes
 * (400 for malformed directives, 422 for lists of lists, 500 with Go's text otherwise).
 *
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/util/strategicpatch/patch.go
 * @see https://github.com/kubernetes/apiserver/blob/release-1.32/pkg/endpoints/handlers/patch.go
 * @see https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-machinery/strategic-merge-patch.md
 */
import { newUnsupportedMediaType } from '../errors.js';
import { goSprint } from './go-format.js';
import { GoJsonError, goJsonDecode, goUnmarshalTypeError } from './go-json.js';
import { type Json, type JsonObject, cloneJson, goEqual, goKind, isObject, own, setOwn } from './json-value.js';
import { type FieldPatchMeta, fieldTypes, kindDefinitions, patchMeta } from './patch-meta.js';
import { patchBadRequest, patchInternal } from './patch-errors.js';
import {
  type AliasView,
  deleteDirective,
  directiveMarker,
  discardNullValues,
  errBadArgType,
  errBadPatchType,
  errNoMergeKey,
  mergeSliceHandler,
  normalizeElementOrder,
  partitionMapsByPresentInList,
  partitionPrimitivesByPresentInList,
  removeDirectives,
  replaceDirective,
  sliceElementType,
} from './smp-lists.js';

const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

/** The patch types the API server accepts for custom resources (listed in its 415 answer to SMP). */
export const customResourcePatchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** The tables the walker reads: per-field strategy/merge key, and nested definitions. */
export interface PatchMetaTables {
  patchMeta: Record<string, Record<string, FieldPatchMeta>>;
  fieldTypes: Record<string, Record<string, string>>;
}

const builtinTables: PatchMetaTables = { patchMeta, fieldTypes };

/** `<apiVersion>/<Kind>` as used by {@link kindDefinitions}, e.g. `apps/v1/Deployment`. */
export function strategicMergeKindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/**
 * Does the API server accept a strategic merge patch for this kind (`v1/Pod`,
 * `apps/v1/Deployment`)? False for custom resources and anything else without patch
 * metadata: upstream answers those with 415 UnsupportedMediaType.
 */
export function isStrategicMergeSupported(kindKey: string): boolean {
  return Object.hasOwn(kindDefinitions, kindKey);
}

/** Options of {@link strategicMergePatch}. */
export interface StrategicMergePatchOptions {
  /** Field validation of the request (`fieldValidation` query); Strict and Warn (the default) decode the body strictly. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

/** Result of {@link strategicMergePatchBody}: the merged object and strict-decoding findings of the body. */
export interface StrategicMergePatchResult {
  object: JsonObject;
  /** e.g. `duplicate field "metadata.labels.a"`; the API server fails (Strict) or warns (Warn) with them. */
  strictErrors: string[];
}

/**
 * Applies a strategic merge patch to `original` (not modified) and returns the merged
 * object. `patch` is the decoded patch object.
 *
 * @param kindKey `<apiVersion>/<Kind>` of the object, e.g. `v1/Pod`.
 * @throws StatusError 415 for kinds without SMP support (custom resources); 400 for
 *   malformed directives (`invalid patch format of retainKeys`, …); 422 for lists of
 *   lists; 500 with upstream's text for other malformed patches
 *   (`map: map[image:x] does not contain declared merge key: name`).
 */
export function strategicMergePatch(original: object, patch: object | null, kindKey: string): JsonObject {
  const def = kindDefinitions[kindKey];
  if (def === undefined || !Object.hasOwn(kindDefinitions, kindKey)) {
    throw newUnsupportedMediaType('application/strategic-merge-patch+json', customResourcePatchTypes);
  }
  if (patch !== null && !isObject(patch)) throw patchBadRequest(goUnmarshalTypeError(patch as Json, 'map[string]interface {}'));
  return strategicMergeMapPatch(cloneJson(original as JsonObject), patch === null ? {} : cloneJson(patch as JsonObject), def);
}

/**
 * Decodes a request body and applies it as {@link strategicMergePatch} does, with the
 * API server's decoding errors: 400 with Go's text for invalid JSON or a body that is
 * not an object (`json: cannot unmarshal array into Go value of type map[string]interface {}`);
 * a `null` body changes nothing.
 *
 * @throws StatusError as {@link strategicMergePatch}, and 400 for undecodable bodies.
 */
export function strategicMergePatchBody(original: object, body: string | Uint8Array, kindKey: string, opts: StrategicMergePatchOptions = {}): StrategicMergePatchResult {
  if (!isStrategicMergeSupported(kindKey)) {
    throw newUnsupportedMediaType('application/strategic-merge-patch+json', customResourcePatchTypes);
  }
  let decoded;
  try {
    decoded = goJsonDecode(body, { strict: opts.fieldValidation !== 'Ignore' });
  } catch (e) {
    if (e instanceof GoJsonError) throw patchBadRequest(e.message);
    throw e;
  }
  const v = decoded.value;
  if (v !== null && !isObject(v)) throw patchBadRequest(goUnmarshalTypeError(v, 'map[string]interface {}'));
  const object = strategicMergeMapPatch(cloneJson(original as JsonObject), v ?? {}, kindDefinitions[kindKey]!);
  return { object, strictErrors: decoded.strictErrors };
}

/**
 * The merge itself, on decoded maps, below definition `def` (undefined: no metadata,
 * every list is replaced). Mutates and returns `original`; mutates `patch`. Exposed
 * for callers with their own tables (tests, aggregated types).
 */
export function strategicMergeMapPatch(original: JsonObject, patch: JsonObject, def: string | undefined, tables: PatchMetaTables = builtinTables): JsonObject {
  const walker = new Walker(tables);
  return walker.mergeMap(original, patch, def);
}

interface FieldLookup {
  sub: string | undefined;
  strategy: string;
  mergeKey: string;
}

const noMeta: FieldLookup = { sub: undefined, strategy: '', mergeKey: '' };

class Walker {
  constructor(private readonly tables: PatchMetaTables) {}

  /** Field metadata below `def`; `strategy` with retainKeys taken out (upstream extractRetainKeysPatchStrategy). */
  private lookup(def: string | undefined, key: string): FieldLookup {
    if (def === undefined) return noMeta;
    const types = this.tables.fieldTypes[def];
    const metas = this.tables.patchMeta[def];
    const sub = types && Object.hasOwn(types, key) ? types[key] : undefined;
    const meta = metas && Object.hasOwn(metas, key) ? metas[key] : undefined;
    if (!meta) return sub === undefined ? noMeta : { sub, strategy: '', mergeKey: '' };
    let strategy = '';
    for (const s of meta.strategy.split(',')) if (s !== 'retainKeys') strategy = s;
    return { sub, strategy, mergeKey: meta.mergeKey ?? '' };
  }

  readonly mergeMap = (original: JsonObject | null, patch: JsonObject, def: string | undefined): JsonObject => {
    if (Object.hasOwn(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker]!, patch);
    if (original === null) original = {};
    applyRetainKeysDirective(original, patch);
    this.mergePatchIntoOriginal(original, patch, def);

    for (const patchKey of Object.keys(patch)) {
      const patchV = patch[patchKey]!;
      let k = patchKey;
      let isDeleteList = false;
      if (patchKey.startsWith(deleteFromPrimitiveListPrefix)) {
        const key = extractKey(patchKey, deleteFromPrimitiveListPrefix);
        if (key) k = key;
        isDeleteList = true;
      }
      // null deletes the key (IgnoreUnmatchedNulls: never stored).
      if (patchV === null) {
        delete original[k];
        continue;
      }
      const origV = own(original, k);
      if (origV === undefined || goKind(origV) !== goKind(patchV)) {
        // Not in the original, or of another type: take the patch value.
        if (!isDeleteList) this.setCleaned(original, k, patchV);
        continue;
      }
      if (isObject(origV)) {
        const f = this.lookup(def, k);
        setOwn(original, k, f.strategy === replaceDirective ? patchV : this.mergeMap(origV, patchV as JsonObject, f.sub));
      } else if (Array.isArray(origV)) {
        const f = this.lookup(def, k);
        setOwn(original, k, mergeSliceHandler(this.mergeMap, origV, patchV, f.sub, f.strategy, f.mergeKey, isDeleteList));
      } else {
        // Scalars: the patch value (a directive map cannot reach here: kinds differ).
        setOwn(original, k, patchV);
      }
    }
    return original;
  };

  private setCleaned(original: JsonObject, k: string, v: Json): void {
    discardNullValues(v);
    const r = removeDirectives(v);
    if (r.keep) setOwn(original, k, r.value);
    else delete original[k];
  }

  /**
   * Handles every `$setElementOrder/<field>` of the patch together with `<field>`: merges
   * the list, then orders it by the directive (patch items in its order, server-only
   * items where the live list had them). Removes both keys from the patch.
   */
  private mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, def: string | undefined): void {
    for (const key of Object.keys(patch)) {
      if (!key.startsWith(setElementOrderPrefix)) continue;
      const order = patch[key]!;
      delete patch[key];
      if (!Array.isArray(order)) throw errBadArgType('slice', order);
      const field = extractKey(key, setElementOrderPrefix);
      const foundOriginal = Object.hasOwn(original, field);
      const foundPatch = Object.hasOwn(patch, field);
      const origList = foundOriginal ? original[field]! : undefined;
      const patchList = foundPatch ? patch[field]! : undefined;
      if (foundOriginal && !Array.isArray(origList)) throw errBadArgType('slice', origList);
      if (foundPatch && !Array.isArray(patchList)) throw errBadArgType('slice', patchList);
      const ol = origList as Json[] | undefined;
      const pl = patchList as Json[] | undefined;
      const f = this.lookup(def, field);
      validatePatchWithSetOrderList(pl ?? [], order, f.mergeKey);

      let merged: Json[];
      // Upstream keeps using the original list after merging, seeing what the merge
      // did in place to its storage (see AliasView).
      const alias: AliasView = {};
      if (ol && !pl) merged = ol;
      else if (!ol && pl) merged = removeDirectives(pl).value as Json[];
      else if (ol && pl) merged = mergeSliceHandler(this.mergeMap, ol, pl, f.sub, f.strategy, f.mergeKey, false, alias);
      else continue;
      const serverOrder = alias.view ?? ol;

      const { patchItems, serverOnly } = f.mergeKey ? partitionMapsByPresentInList(merged, order, f.mergeKey) : partitionPrimitivesByPresentInList(merged, order);
      const kind = sliceElementType(serverOrder, pl);
      setOwn(original, field, normalizeElementOrder(patchItems, serverOnly, order, serverOrder ?? [], f.mergeKey, kind));
      delete patch[field];
    }
  }
}

/** `$patch` on a map: replace → the patch map without the directive; delete → {}; else 500. */
function handleDirectiveInMergeMap(directive: Json, patch: JsonObject): JsonObject {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

/**
 * `$retainKeys: [a, b]`: every non-null patch key must be listed (else 400 `invalid
 * patch format of retainKeys`), and original keys not listed are cleared.
 */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const list = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(list)) throw patchBadRequest('invalid patch format of retainKeys');
  const keep = new Set<Json>(list);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
    if (!keep.has(k)) throw patchBadRequest('invalid patch format of retainKeys');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** `$setElementOrder/containers` → `containers`; 400 when the directive is malformed. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw patchBadRequest(prefix === deleteFromPrimitiveListPrefix ? 'invalid patch format of primitive list' : 'invalid patch format of setElementOrder list');
  }
  return s.slice(slash + 1);
}

/**
 * The patch list must follow the `$setElementOrder` list's relative order and be a
 * subset of it (deletions and directive items ignored); otherwise upstream's 500.
 */
function validatePatchWithSetOrderList(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) {
    items = [];
    for (const v of patchList) {
      if (!isObject(v)) throw errBadArgType('map', v);
      if (!(Object.hasOwn(v, directiveMarker) && v[directiveMarker] === deleteDirective)) items.push(v);
    }
  }
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    const item = items[p]!;
    if (isObject(item) && Object.hasOwn(item, directiveMarker)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[s]!, mergeKey)) p++;
    s++;
  }
  if (p < items.length && s >= order.length) {
    throw patchInternal(`The order in patch list:\n${goSprint(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goSprint(order)}\n`);
  }
}

function mergeKeyValueEqual(left: Json, right: Json, mergeKey: string): boolean {
  if (!mergeKey) return goEqual(left, right);
  if (!isObject(left)) throw errBadArgType('map', left);
  if (!isObject(right)) throw errBadArgType('map', right);
  if (!Object.hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}
