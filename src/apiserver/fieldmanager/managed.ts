/**
 * `metadata.managedFields` entries decoded into field sets per manager and encoded back,
 * as upstream's managedfields internals do: a manager is identified by its name,
 * operation, subresource and (for Update only) apiVersion; entries are written sorted
 * (Apply before Update, then by time, manager, apiVersion, subresource); at most 10
 * Update managers are kept, older ones folding into `ancient-changes`.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/internal/managedfields.go
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/util/managedfields/internal/capmanagers.go
 */
import { FieldSet } from './fieldset.js';

/** metav1.ManagedFieldsEntry as stored in objects. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  /** RFC 3339, seconds */
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** One manager's fields. */
export interface ManagerFields {
  manager: string;
  operation: 'Apply' | 'Update';
  /** the API version the set is expressed in */
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** Managers by identifier (see managerId). */
export type Managed = Map<string, ManagerFields>;

/**
 * The field set of every `fieldsV1` object decoded or encoded here, and the `fieldsV1`
 * object of every set encoded here: a write whose managers' sets did not change (most
 * status writes, every write of a manager that owns the fields already) reuses the
 * stored object's `fieldsV1` objects instead of building them again, and the next write
 * finds their sets without parsing them. Sets handed out by {@link decodeManagedFields}
 * are shared this way, so the field manager never changes a set in place (set algebra
 * returns new sets); `fieldsV1` objects are never changed in place either (the stored
 * objects that hold them are immutable).
 */
const setOfFieldsV1 = new WeakMap<object, FieldSet>();
const fieldsV1OfSet = new WeakMap<FieldSet, Record<string, unknown>>();

/** The set of a `fieldsV1` object (shared: never mutate it). @throws Error as FieldSet.fromFieldsV1 */
function setOf(fieldsV1: Record<string, unknown> | undefined): FieldSet {
  if (fieldsV1 === undefined || fieldsV1 === null || typeof fieldsV1 !== 'object') return FieldSet.fromFieldsV1(fieldsV1 ?? {});
  let s = setOfFieldsV1.get(fieldsV1);
  if (s === undefined) {
    s = FieldSet.fromFieldsV1(fieldsV1);
    setOfFieldsV1.set(fieldsV1, s);
    fieldsV1OfSet.set(s, fieldsV1);
  }
  return s;
}

/** The `fieldsV1` object of a set (shared with every object that holds the same set: never mutate it). */
function fieldsV1Of(set: FieldSet): Record<string, unknown> {
  let f = fieldsV1OfSet.get(set);
  if (f === undefined) {
    f = set.toFieldsV1();
    fieldsV1OfSet.set(set, f);
    setOfFieldsV1.set(f, set);
  }
  return f;
}

/** Upstream's cap on Update entries. */
export const MAX_UPDATE_MANAGERS = 10;
/** The entry older Update managers are folded into. */
export const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Identifier of a manager, as upstream's BuildManagerIdentifier: the JSON of the entry
 * without fields and time, and without apiVersion for appliers (they keep one entry
 * whatever version they apply).
 */
export function managerId(manager: string, operation: 'Apply' | 'Update', apiVersion: string, subresource: string): string {
  const o: Record<string, string> = { manager, operation };
  if (operation === 'Update' && apiVersion) o.apiVersion = apiVersion;
  if (subresource) o.subresource = subresource;
  return JSON.stringify(o);
}

/** Whether a request's managedFields ask for a reset (`[]` or `[{}]`). */
export function isResetManagedFields(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && mf[0] !== null && typeof mf[0] === 'object' && Object.keys(mf[0] as object).length === 0;
}

/**
 * Decodes managedFields entries. `from` says whose they are: `stored` (the entries of a
 * stored object, or of an object about to be stored, which nothing changes afterwards:
 * their sets are remembered, see {@link setOfFieldsV1}) or `request` (a client's, which
 * it may still change: decoded afresh unless they are stored ones).
 * @throws Error on entries upstream rejects (bad operation, no apiVersion, fieldsType
 * other than FieldsV1, malformed fieldsV1)
 */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined, from: 'stored' | 'request' = 'stored'): Managed {
  const m: Managed = new Map();
  if (!entries) return m;
  entries.forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (e.fieldsType !== 'FieldsV1') {
      throw new Error(e.fieldsType ? `invalid fieldsType "${e.fieldsType}" in managed fields entry ${i}` : `missing fieldsType in managed fields entry ${i}`);
    }
    const f = e.fieldsV1;
    const mf: ManagerFields = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: e.subresource ?? '',
      set: from === 'stored' ? setOf(f) : (f !== null && typeof f === 'object' && setOfFieldsV1.get(f)) || FieldSet.fromFieldsV1(f ?? {}),
    };
    if (e.time) mf.time = e.time;
    m.set(managerId(mf.manager, mf.operation, mf.apiVersion, mf.subresource), mf);
  });
  return m;
}

/** Decodes, or an empty set of managers when the entries are invalid. */
export function decodeOrEmpty(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

function timeSeconds(t: string | undefined): number {
  return t ? Math.floor(Date.parse(t) / 1000) : 0;
}

/** Entries in upstream's order; undefined when there are none (the field is omitted). */
export function encodeManagedFields(m: Managed): ManagedFieldsEntry[] | undefined {
  if (m.size === 0) return undefined;
  const list = [...m.values()];
  list.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const tp = timeSeconds(p.time);
    const tq = timeSeconds(q.time);
    if (tp !== tq) return tp - tq;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return p.subresource < q.subresource ? -1 : p.subresource > q.subresource ? 1 : 0;
  });
  return list.map((e) => {
    const o: ManagedFieldsEntry = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) o.time = e.time;
    o.fieldsType = 'FieldsV1';
    o.fieldsV1 = fieldsV1Of(e.set);
    if (e.subresource) o.subresource = e.subresource;
    return o;
  });
}

/**
 * Keeps at most `max` Update managers: the oldest ones (by time, then identifier) are
 * merged, per API version, into an `ancient-changes` Update entry (mutates `m`).
 */
export function capUpdateManagers(m: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters: string[] = [];
  for (const [id, e] of m) if (e.operation === 'Update') updaters.push(id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const ta = timeSeconds(m.get(a)!.time);
    const tb = timeSeconds(m.get(b)!.time);
    if (ta !== tb) return ta - tb;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const e = m.get(id)!;
    const bucket = managerId(ANCIENT_CHANGES, 'Update', e.apiVersion, '');
    const first = firstByVersion.get(e.apiVersion);
    if (first === undefined) {
      firstByVersion.set(e.apiVersion, id);
      continue;
    }
    let b = m.get(bucket);
    if (!b) {
      const f = m.get(first)!;
      m.delete(first);
      b = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: e.apiVersion, subresource: '', set: f.set };
      if (f.time) b.time = f.time;
      m.set(bucket, b);
    }
    b.set = e.set.union(b.set);
    m.delete(id);
    length--;
    if (e.time) b.time = e.time;
    else delete b.time;
  }
}
