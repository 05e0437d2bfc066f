/**
 * An object as the registry holds it after decoding from storage: the decoded value
 * (treated as immutable: never mutate `obj`, clone with `cloneObject` first), its
 * resourceVersion, and its JSON serialisation computed once and shared by every
 * list and watch that sends it.
 */
import type { Obj } from '../../api/resource.js';

export class CachedObject {
  private jsonText?: string;
  constructor(
    readonly key: string,
    readonly obj: Obj,
    readonly rv: number,
  ) {}

  /** The wire JSON (with metadata.resourceVersion), computed once. */
  get json(): string {
    if (this.jsonText === undefined) this.jsonText = JSON.stringify(this.obj);
    return this.jsonText;
  }

  get namespace(): string {
    return this.obj.metadata.namespace ?? '';
  }

  get name(): string {
    return this.obj.metadata.name ?? '';
  }

  /** A deep, mutable copy. */
  clone(): Obj {
    return JSON.parse(this.json) as Obj;
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
  if (obj.metadata.resourceVersion === undefined) return JSON.stringify(obj);
  return JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } });
}

/** Deep copy of plain JSON data. */
export function cloneObject<T>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

/** Turns a stored kv into the served object (decode + optional conversion). */
export type Decoder = (key: string, value: string, modRevision: number) => CachedObject;
