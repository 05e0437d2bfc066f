/**
 * Type glue between kubernetes-types interfaces (no index signature) and the
 * ResourceDefinition contract (`T extends KObject`).
 */
import type { KObject, Obj } from '../../../resource.js';

/** A kubernetes-types object usable as a ResourceDefinition type parameter. */
export type K<T> = T & KObject;
/** The object as strategies receive it (metadata present). */
export type O<T> = Obj<K<T>>;

/** A deep copy of JSON data. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

/** ObjectMeta without kubernetes-types' readonly markers, for the system fields strategies set. */
export interface MutableMeta {
  generation?: number;
  deletionTimestamp?: string;
  creationTimestamp?: string;
  resourceVersion?: string;
  uid?: string;
}

/** The metadata of `obj` with system fields writable (generation, deletionTimestamp, …). */
export function mutableMeta(obj: { metadata: object }): MutableMeta {
  return obj.metadata as MutableMeta;
}
