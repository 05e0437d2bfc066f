/**
 * An object as the registry holds it after decoding from storage: the decoded value
 * (treated as immutable: never mutate `obj`, clone with `cloneObject` first), its
 * resourceVersion, and its JSON serialisation computed once and shared by every
 * list and watch that sends it.
 */
import type { Obj } from '../../api/resource.js';

export class CachedObject {
  private jsonText?: string;
  private frozen = false;
  /**
   * @param json the wire JSON when the writer already has it (it must equal
   * `JSON.stringify(obj)`); computed on first use otherwise
   */
  constructor(
    readonly key: string,
    readonly obj: Obj,
    readonly rv: number,
    json?: string,
  ) {
    this.jsonText = json;
  }

  /** The wire JSON (with metadata.resourceVersion), computed once (until {@link dropJson}). */
  get json(): string {
    if (this.jsonText === undefined) this.jsonText = JSON.stringify(this.obj);
    return this.jsonText;
  }

  /**
   * Releases the JSON text (a superseded version the watch cache keeps only for replays);
   * {@link json} computes it again when asked.
   */
  dropJson(): void {
    this.jsonText = undefined;
  }

  get namespace(): string {
    return this.obj.metadata.namespace ?? '';
  }

  get name(): string {
    return this.obj.metadata.name ?? '';
  }

  /** A deep, mutable copy (see {@link cloneOrigin}). */
  clone(): Obj {
    const copy = JSON.parse(this.json) as Obj;
    origins.set(copy, this.obj);
    return copy;
  }

  /**
   * The decoded object itself, deep-frozen (once), for in-process readers that share
   * it instead of parsing {@link json} each (the loopback transport's watchers, as
   * client-go's informers share one object among their handlers). A reader that tries
   * to change it gets a TypeError; clone it first.
   */
  shared(): Obj {
    if (!this.frozen) {
      deepFreeze(this.obj);
      this.frozen = true;
    }
    return this.obj;
  }
}

/** copy → the cached object it was made from (see {@link cloneOrigin}) */
const origins = new WeakMap<Obj, Obj>();

/**
 * The cached (immutable) object `copy` was made from by {@link CachedObject.clone}, if
 * it was: the field manager reads the stored managedFields from it, whose decoded field
 * sets it remembers (a copy may have been changed since: compare before relying on it).
 */
export function cloneOrigin(copy: Obj): Obj | undefined {
  return origins.get(copy);
}

/**
 * Forgets where `copy` came from, once it has been written: the written copy becomes the
 * cached object of the next version, and an origin kept with it would keep the previous
 * version alive, and that one its own previous version — every version of an object
 * updated in place for as long as its latest one lives.
 */
export function forgetOrigin(copy: Obj): void {
  origins.delete(copy);
}

/**
 * Makes an object being written safe to change: every frozen (shared, see
 * {@link CachedObject.shared}) object inside it — a strategy or an admission plugin may
 * have copied parts of the stored object into it, e.g. the old spec into a status
 * write — is replaced in place by a mutable deep copy. Returns `o`, or a mutable deep
 * copy of it when `o` itself is frozen.
 */
export function thawShared<T extends object>(o: T): T {
  if (Object.isFrozen(o)) return deepCopy(o);
  const meta = (o as { metadata?: unknown }).metadata as { managedFields?: unknown } | undefined;
  if (meta !== null && typeof meta === 'object' && !Object.isFrozen(meta) && Array.isArray(meta.managedFields)) {
    // managedFields' fieldsV1 objects stay shared: the field manager reuses the stored
    // ones for unchanged sets and never changes one in place (fieldmanager/managed.ts)
    const entries = thawManagedFields(meta.managedFields);
    meta.managedFields = undefined; // keeps the member's place
    try {
      thawInside(o);
    } finally {
      meta.managedFields = entries;
    }
    return o;
  }
  thawInside(o);
  return o;
}

/** managedFields entries made mutable, each `fieldsV1` left as it is. */
function thawManagedFields(mf: unknown[]): unknown[] {
  const out = Object.isFrozen(mf) ? mf.slice() : mf;
  for (let i = 0; i < out.length; i++) {
    let e = out[i] as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object' || Array.isArray(e)) {
      if (e !== null && typeof e === 'object') out[i] = Object.isFrozen(e) ? deepCopy(e) : (thawInside(e), e);
      continue;
    }
    if (Object.isFrozen(e)) out[i] = e = { ...e };
    for (const k in e) {
      const v = e[k];
      if (k === 'fieldsV1' || typeof v !== 'object' || v === null) continue;
      if (Object.isFrozen(v)) e[k] = deepCopy(v);
      else thawInside(v);
    }
  }
  return out;
}

function thawInside(o: object): void {
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) {
      const v: unknown = o[i];
      if (typeof v !== 'object' || v === null) continue;
      if (Object.isFrozen(v)) o[i] = deepCopy(v);
      else thawInside(v);
    }
    return;
  }
  const r = o as Record<string, unknown>;
  for (const k in r) {
    const v = r[k];
    if (typeof v !== 'object' || v === null) continue;
    if (Object.isFrozen(v)) r[k] = deepCopy(v);
    else thawInside(v);
  }
}

/** A mutable deep copy of plain data (members holding undefined are kept, unlike a JSON round trip). */
function deepCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = deepCopy((v as Record<string, unknown>)[k]);
  return out as T;
}

/** Freezes plain JSON data and everything it holds. */
function deepFreeze(o: object): void {
  if (Object.isFrozen(o)) return;
  Object.freeze(o);
  if (Array.isArray(o)) {
    for (const v of o) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  } else {
    for (const k in o) {
      const v = (o as Record<string, unknown>)[k];
      if (typeof v === 'object' && v !== null) deepFreeze(v);
    }
  }
}

/**
 * Decodes a stored value into a CachedObject, setting metadata.resourceVersion from the
 * storage modRevision (values are stored without it, as upstream's etcd3 store does).
 * @throws SyntaxError on corrupt data
 */
export function decodeStored(key: string, value: string, modRevision: number): CachedObject {
  const obj = JSON.parse(value) as Obj;
  if (!obj.metadata) obj.metadata = {};
  obj.metadata.resourceVersion = String(modRevision);
  return new CachedObject(key, obj, modRevision);
}

/** Serialises an object for storage: everything except metadata.resourceVersion. */
export function encodeForStorage(obj: Obj): string {
  return encodeObject(obj).stored;
}

/**
 * An object serialised once for both uses: the stored text (without
 * metadata.resourceVersion) and, for a revision, the wire JSON, which is exactly
 * `JSON.stringify(obj)` once `obj.metadata.resourceVersion` is set to that revision
 * (the key keeps its place in metadata, or comes last when it is new).
 */
export interface EncodedObject {
  /** the storage value */
  readonly stored: string;
  /** the wire JSON with metadata.resourceVersion = String(rv), or undefined when only `JSON.stringify(obj)` can tell */
  wire(rv: number): string | undefined;
}

/**
 * Marks the place of metadata.resourceVersion while the object is serialised: a value
 * with control characters (escaped by JSON.stringify), whose member text is looked up
 * afterwards and used only when it occurs exactly once.
 */
const RV_MARK = '\u0001k8ts-resource-version\u0001';
const RV_MEMBER = `"resourceVersion":${JSON.stringify(RV_MARK)}`;

/** The serialisation with the place of metadata.resourceVersion in it. */
class MarkedEncoding implements EncodedObject {
  readonly stored: string;
  private readonly head: string;
  private readonly tail: string;

  /**
   * @param text the object's JSON with {@link RV_MEMBER} at `at`
   */
  constructor(text: string, at: number) {
    this.head = text.slice(0, at);
    this.tail = text.slice(at + RV_MEMBER.length);
    // the stored text drops the member and one comma next to it
    if (text.charCodeAt(at - 1) === 44 /* , */) this.stored = text.slice(0, at - 1) + this.tail;
    else if (text.charCodeAt(at + RV_MEMBER.length) === 44) this.stored = this.head + text.slice(at + RV_MEMBER.length + 1);
    else this.stored = this.head + this.tail;
  }

  wire(rv: number): string {
    return `${this.head}"resourceVersion":"${rv}"${this.tail}`;
  }
}

/**
 * Objects of unusual shapes (not plain data) or stored in another form (storage
 * conversion): the stored text alone, the wire JSON left to JSON.stringify.
 */
export class WholeEncoding implements EncodedObject {
  constructor(readonly stored: string) {}
  wire(): undefined {
    return undefined;
  }
}

function wholeEncoding(obj: Obj): WholeEncoding {
  const m = obj.metadata;
  return new WholeEncoding(m?.resourceVersion === undefined ? JSON.stringify(obj) : JSON.stringify({ ...obj, metadata: { ...m, resourceVersion: undefined } }));
}

/**
 * Serialises `obj` once for storage and the wire (see {@link EncodedObject}), where
 * storing and answering used to serialise it twice (and copy it to drop
 * resourceVersion). `obj.metadata.resourceVersion` holds a marker during the call
 * and is restored (same value, same key order) before it returns.
 */
export function encodeObject(obj: Obj): EncodedObject {
  const m = obj.metadata as unknown;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return wholeEncoding(obj);
  const meta = obj.metadata;
  const had = Object.hasOwn(meta, 'resourceVersion');
  const saved = meta.resourceVersion;
  let text: string;
  try {
    meta.resourceVersion = RV_MARK;
  } catch {
    return wholeEncoding(obj); // frozen metadata
  }
  try {
    text = JSON.stringify(obj);
  } finally {
    if (had) meta.resourceVersion = saved;
    else delete meta.resourceVersion;
  }
  const at = text.indexOf(RV_MEMBER);
  // absent: a toJSON or an unusual shape hid metadata; twice: the text occurs in data too
  if (at < 0 || text.indexOf(RV_MEMBER, at + RV_MEMBER.length) >= 0) return wholeEncoding(obj);
  return new MarkedEncoding(text, at);
}

/** Deep copy of plain JSON data. */
export function cloneObject<T>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

/** Turns a stored kv into the served object (decode + optional conversion). */
export type Decoder = (key: string, value: string, modRevision: number) => CachedObject;
