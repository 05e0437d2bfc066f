/**
 * Decoded-JSON value helpers shared by the patch implementations: safe own-property
 * access (a patch may carry a `__proto__` key), Go-like kinds and equality, deep copy.
 */
import { isGoInt } from './go-format.js';

/** A decoded JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
/** A decoded JSON object. */
export interface JsonObject {
  [key: string]: Json;
}

/** Go reflect kind of a decoded JSON value (int64 and float64 kept apart as Go's int-preserving decoder does). */
export type GoKind = 'nil' | 'string' | 'bool' | 'int64' | 'float64' | 'slice' | 'map';

export function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return isGoInt(v) ? 'int64' : 'float64';
    default:
      return Array.isArray(v) ? 'slice' : 'map';
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own property `k` of `o`, or undefined (never reads the prototype chain). */
export function own(o: JsonObject, k: string): Json | undefined {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

/** Sets own property `k`, also when `k` is `__proto__`. */
export function setOwn(o: JsonObject, k: string, v: Json): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/**
 * Go's `==` on two interface values holding decoded JSON scalars: same kind and value.
 * Maps and slices are not comparable in Go (the comparison panics there); here they
 * compare by identity.
 */
export function goEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  return a === b;
}

/** Structural equality of two JSON values (object key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) {
    if (!Object.hasOwn(bo, k) || !deepEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/** Deep copy of a JSON value (plain data only). */
export function cloneJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(cloneJson) as T;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) setOwn(out, k, cloneJson((v as JsonObject)[k]!));
  return out as T;
}
