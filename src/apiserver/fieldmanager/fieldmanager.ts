/**
 * Field management for writes (kube-apiserver's FieldManager): every create, update and
 * patch records in `metadata.managedFields` which manager set which fields, and server-side
 * apply merges an applied configuration with ownership: conflicts with other managers,
 * removal of fields the applier no longer applies.
 *
 * Update operations (create, update, non-apply patches, status writes): the manager
 * gets the fields whose value changed and takes them from every other manager (no
 * conflicts). Apply operations: see {@link applyFields}.
 *
 * @see https://kubernetes.io/docs/reference/using-api/server-side-apply/
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/internal/fieldmanager.go
 * @see https://github.com/kubernetes-sigs/structured-merge-diff/blob/v4.4.2/merge/update.go
 */
import type { KObject, Obj } from '../../api/resource.js';
import { newBadRequest } from '../../apimachinery/errors.js';
import { rfc3339 } from '../registry/meta.js';
import { cloneOrigin } from '../registry/cached-object.js';
import { newApplyConflict, type Conflict } from './conflict.js';
import { createFieldsV1 } from './create.js';
import { disallowedConflicts, KUBECTL_MANAGER, lastAppliedFields, updateLastApplied } from './lastapplied.js';
import { FieldSet, fieldPE } from './fieldset.js';
import { capUpdateManagers, decodeManagedFields, decodeOrEmpty, encodeManagedFields, isResetManagedFields, managerId, type Managed, type ManagedFieldsEntry } from './managed.js';
import { typeOfDefinition, type MapType, type TypedDefinition } from './types.js';
import { compare, deepEqual, merge, removeUnowned, ShapeError, toFieldSet, type Comparison } from './walk.js';

/** What the field manager needs to know about the resource and the request. */
export interface FieldManagerScope {
  /** the resource (its kind's schema gives list types) */
  def: TypedDefinition & { status?: unknown };
  /** '' for the main resource, 'status', … */
  subresource: string;
  now: Date;
}

/** Upstream's limit on fieldManager (validation.FieldManagerMaxLength). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Text of printable ASCII characters only (one byte each, none of them dropped from a manager name). */
export const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The manager of a request: the `fieldManager` parameter, else the User-Agent up to its
 * first `/` without unprintable characters, cut at 128 bytes (upstream managerOrUserAgent).
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/rest.go
 */
export function managerName(fieldManager: string | null | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const ua = userAgent ?? '';
  const slash = ua.indexOf('/');
  const head = slash < 0 ? ua : ua.slice(0, slash);
  // the common case: printable ASCII only, short enough (nothing to drop or cut)
  if (head.length <= FIELD_MANAGER_MAX_LENGTH && PRINTABLE_ASCII.test(head)) return head;
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** Fields no manager owns (upstream stripMetaManager). */
const STRIPPED_META = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

function strip(s: FieldSet): void {
  const c = s.children;
  if (!c) return;
  for (const f of ['f:apiVersion', 'f:kind']) {
    const n = c.get(f);
    if (n) n.member = false;
  }
  const md = c.get('f:metadata');
  if (md) {
    md.member = false;
    for (const f of STRIPPED_META) {
      const n = md.children?.get(fieldPE(f));
      if (n) n.member = false;
    }
  }
  s.prune();
}

/**
 * Fields the strategy resets, which nobody owns through this endpoint (upstream
 * GetResetFields → the updater's IgnoreFilter): `status` on a main resource that has a
 * status subresource; everything but status and metadata on the status subresource.
 */
function resetFilter(scope: FieldManagerScope): ((s: FieldSet) => void) | undefined {
  if (scope.subresource === 'status') {
    return (s) => {
      if (!s.children) return;
      for (const k of [...s.children.keys()]) if (k !== 'f:status' && k !== 'f:metadata') s.children.delete(k);
      s.member = false;
    };
  }
  if (!scope.subresource && scope.def.status) return (s) => void s.children?.delete('f:status');
  return undefined;
}

function filterComparison(c: Comparison, f: ((s: FieldSet) => void) | undefined): void {
  if (!f) return;
  f(c.added);
  f(c.modified);
  f(c.removed);
}

function apiVersionOf(def: FieldManagerScope['def']): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/**
 * Takes the changed fields away from every manager but `self` (upstream Updater.update);
 * with `force` false, returns the fields other managers own that changed instead.
 */
function takeOwnership(managed: Managed, c: Comparison, self: string, force: boolean): Conflict[] {
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  const taken = new Map<string, FieldSet>();
  for (const [id, e] of managed) {
    if (id === self) continue;
    const x = e.set.intersection(changed);
    if (!x.isEmpty()) {
      taken.set(id, x);
      if (!force) x.forEachPath((p) => conflicts.push({ manager: e, path: [...p] }));
    }
  }
  if (conflicts.length) return conflicts;
  const hasRemoved = !c.removed.isEmpty();
  for (const [id, e] of managed) {
    if (id === self) continue;
    const x = taken.get(id);
    if (x) e.set = e.set.difference(x);
    // a set nothing was taken from stays the same object (its fieldsV1 is reused, see managed.ts)
    if (hasRemoved && e.set.intersects(c.removed)) e.set = e.set.difference(c.removed);
    if (e.set.isEmpty()) managed.delete(id);
  }
  return [];
}

/**
 * Records an Update operation by `manager` in `obj.metadata.managedFields` (mutates obj).
 * `live` is the stored object (undefined on create). Managers come from the request's
 * managedFields on the main resource when it sends valid ones (`[]` resets them), else
 * from `live`. Objects that exist without managedFields stay without them. Never throws:
 * on internal errors the live managedFields are kept (upstream UpdateNoErrors).
 */
export function updateFields(live: Obj | undefined, obj: Obj, manager: string, scope: FieldManagerScope): void {
  // the stored object's own entries when `live` is a copy of it (their decoded sets are remembered)
  const liveMF = storedManagedFields(live);
  try {
    const reqMF = obj.metadata.managedFields as unknown;
    if (!live && reqMF === undefined) return createFields(obj, manager, scope);
    let managed: Managed;
    if (scope.subresource) managed = decodeOrEmpty(liveMF);
    else if (isResetManagedFields(reqMF)) managed = new Map();
    else if (reqMF !== undefined && liveMF !== undefined && deepEqual(reqMF, liveMF)) {
      // the request sends the stored entries back unchanged (updates and patches of objects read before)
      managed = decodeOrEmpty(liveMF);
    } else {
      let fromReq: Managed | undefined;
      try {
        fromReq = reqMF === undefined ? undefined : decodeManagedFields(reqMF as ManagedFieldsEntry[], 'request');
      } catch {
        fromReq = undefined;
      }
      managed = fromReq?.size ? fromReq : decodeOrEmpty(liveMF);
    }
    delete obj.metadata.managedFields;
    if (managed.size === 0 && live?.metadata.uid) return; // upstream skipNonAppliedManager
    const type = typeOfDefinition(scope.def);
    const c = live ? compare(withoutManagedFields(live), obj, type) : compare(undefined, obj, type, true);
    filterComparison(c, resetFilter(scope));
    const apiVersion = apiVersionOf(scope.def);
    const id = managerId(manager || 'unknown', 'Update', apiVersion, scope.subresource);
    recordUpdate(managed, c, id, manager || 'unknown', apiVersion, scope);
    capUpdateManagers(managed);
    setManagedFields(obj, managed);
  } catch {
    if (liveMF) obj.metadata.managedFields = liveMF as never;
    else delete obj.metadata.managedFields;
  }
}

/** The creator's entry, computed in one walk (see create.ts). */
function createFields(obj: Obj, manager: string, scope: FieldManagerScope): void {
  const fields = createFieldsV1(obj, typeOfDefinition(scope.def), !scope.subresource && !!scope.def.status);
  if (!fields) return;
  const e: ManagedFieldsEntry = {
    manager: manager || 'unknown',
    operation: 'Update',
    apiVersion: apiVersionOf(scope.def),
    time: rfc3339(scope.now),
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
  };
  if (scope.subresource) e.subresource = scope.subresource;
  obj.metadata.managedFields = [e] as never;
}

function recordUpdate(managed: Managed, c: Comparison, id: string, manager: string, apiVersion: string, scope: FieldManagerScope): void {
  const before = managed.get(id)?.set;
  takeOwnership(managed, c, '\0current-operation', true);
  const own = c.added.union(c.modified);
  strip(own);
  if (own.isEmpty()) return;
  const prev = managed.get(id);
  let set = prev ? own.union(prev.set) : own;
  // a manager left with the fields it owned keeps its set object (and so its encoded fieldsV1)
  if (before !== undefined && set.isSubsetOf(before) && before.isSubsetOf(set)) set = before;
  managed.set(id, {
    manager,
    operation: 'Update',
    apiVersion,
    subresource: scope.subresource,
    time: rfc3339(scope.now),
    set,
  });
}

/**
 * The managedFields of `live`: those of the stored object `live` was copied from when it
 * is such a copy (CachedObject.clone) with the same entries, else its own.
 */
function storedManagedFields(live: Obj | undefined): ManagedFieldsEntry[] | undefined {
  const mf = live?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  const origin = live && cloneOrigin(live);
  const omf = origin?.metadata.managedFields as ManagedFieldsEntry[] | undefined;
  if (!Array.isArray(omf) || !Array.isArray(mf) || omf.length !== mf.length) return mf;
  for (let i = 0; i < mf.length; i++) {
    const a = mf[i]!;
    const b = omf[i]!;
    if (a === null || typeof a !== 'object' || a.manager !== b.manager || a.time !== b.time || a.operation !== b.operation || a.subresource !== b.subresource) return mf;
  }
  return omf;
}

function withoutManagedFields(o: Obj): Obj {
  if (o.metadata.managedFields === undefined) return o;
  const { managedFields: _, ...meta } = o.metadata;
  return { ...o, metadata: meta } as Obj;
}

function setManagedFields(obj: KObject, managed: Managed): void {
  const enc = encodeManagedFields(managed);
  const meta = (obj.metadata ??= {});
  if (enc) meta.managedFields = enc as never;
  else delete meta.managedFields;
}

/**
 * Server-side apply of `config` by `manager` onto `live` (undefined when the object does
 * not exist yet): merges the configuration by type; removes the fields the manager
 * applied last time and no longer applies when no other manager owns them; fails on
 * fields other managers own whose value would change, unless `force` (then they change
 * hands); the manager's Apply entry becomes exactly the applied fields.
 * For the `kubectl` manager, conflicts on fields in the object's last-applied annotation
 * are allowed and that annotation is rewritten to `config` (client-side → server-side
 * apply migration, see lastapplied.ts).
 * @returns the new object (a new value; `live` may be reused) with managedFields set
 * @throws StatusError 409 Conflict (reason Conflict, causes FieldManagerConflict) on
 *   conflicts; 400 for configurations carrying managedFields or list items without keys
 */
export function applyFields(live: Obj | undefined, config: KObject, manager: string, force: boolean, scope: FieldManagerScope): Obj {
  if (config.metadata?.managedFields !== undefined && config.metadata.managedFields !== null) throw newBadRequest('metadata.managedFields must be nil');
  if (manager !== KUBECTL_MANAGER) return applyOnce(live, config, manager, force, scope);
  let result: Obj;
  try {
    result = applyOnce(live, config, manager, force, scope);
  } catch (e) {
    // client-side apply migration: conflicts on fields the last-applied annotation lists are allowed
    if (!(e instanceof ApplyConflicts)) throw e;
    const allowed = lastAppliedFields(live, typeOfDefinition(scope.def));
    if (!allowed) throw newApplyConflict(e.conflicts);
    const left = disallowedConflicts(e.conflicts, allowed);
    if (left.length) throw newApplyConflict(left);
    result = applyOnce(live, config, manager, true, scope);
  }
  updateLastApplied(result, config);
  return result;
}

/** Conflicts found by applyOnce, before they become a StatusError. */
class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

function applyOnce(live: Obj | undefined, config: KObject, manager: string, force: boolean, scope: FieldManagerScope): Obj {
  const type: MapType = typeOfDefinition(scope.def);
  const apiVersion = apiVersionOf(scope.def);
  const filter = resetFilter(scope);
  let managed: Managed;
  try {
    managed = decodeManagedFields(live?.metadata.managedFields as ManagedFieldsEntry[] | undefined);
  } catch (e) {
    throw newBadRequest(`failed to decode managed fields: ${e instanceof Error ? e.message : String(e)}`);
  }
  const liveObj: Obj = live ? withoutManagedFields(live) : ({ apiVersion: config.apiVersion, kind: config.kind, metadata: {} } as Obj);
  if (managed.size === 0 && live) {
    // fields set before the first apply belong to "before-first-apply" (upstream skipNonAppliedManager)
    const c = compare(undefined, liveObj, type, true);
    filterComparison(c, filter);
    recordUpdate(managed, c, managerId('before-first-apply', 'Update', apiVersion, scope.subresource), 'before-first-apply', apiVersion, scope);
  }
  const id = managerId(manager, 'Apply', apiVersion, scope.subresource);
  const previous = managed.get(id);
  let applied: FieldSet;
  try {
    applied = toFieldSet(config, type);
  } catch (e) {
    if (e instanceof ShapeError) throw newBadRequest(`failed to create typed patch object: ${e.message}`);
    throw e;
  }
  filter?.(applied);
  const configCopy = structuredClone(config);
  delete configCopy.metadata?.managedFields;
  const merged = merge(structuredClone(liveObj), configCopy, type) as Obj;
  managed.set(id, { manager, operation: 'Apply', apiVersion, subresource: scope.subresource, set: applied, time: previous?.time });
  if (previous && !previous.set.isEmpty()) {
    const kept = new FieldSet();
    for (const e of managed.values()) kept.addAll(e.set);
    removeUnowned(merged, type, previous.set, kept);
  }
  const c = compare(liveObj, merged, type);
  filterComparison(c, filter);
  const conflicts = takeOwnership(managed, c, id, force);
  if (conflicts.length) {
    if (manager === KUBECTL_MANAGER) throw new ApplyConflicts(conflicts);
    throw newApplyConflict(conflicts);
  }
  const mine = managed.get(id)!;
  strip(mine.set);
  if (mine.set.isEmpty()) managed.delete(id);
  else if (!deepEqual(liveObj, merged) || !mine.time) mine.time = rfc3339(scope.now);
  setManagedFields(merged, managed);
  return merged;
}
