/**
 * Checks the JSON decoder makes upstream and a generic JSON store does not: `[]byte` fields
 * must be base64 (Secret.data, ConfigMap.binaryData) and quantities must parse. Upstream
 * rejects such bodies while decoding, with a 400 BadRequest
 * `<Kind> in version "<gv>" cannot be handled as a <Kind>: <error>`; strategies call these
 * from prepareForCreate/prepareForUpdate so the client sees the same error.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/runtime/serializer/versioning/versioning.go
 * @see https://pkg.go.dev/encoding/base64#Encoding.Decode
 */
import { newBadRequest, type StatusError } from '../../../../apimachinery/errors.js';
import { canonicalizeQuantityString, parseQuantityJSON, QuantityParseError, type Quantity } from '../../../../apimachinery/quantity.js';

/** 400 `<kind> in version "<gv>" cannot be handled as a <kind>: <msg>` */
export function decodeError(kind: string, groupVersion: string, msg: string): StatusError {
  return newBadRequest(`${kind} in version "${groupVersion}" cannot be handled as a ${kind}: ${msg}`);
}

// Go's StdEncoding alphabet; 0xff = not in alphabet.
const DECODE = new Uint8Array(256).fill(0xff);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (DECODE[c.charCodeAt(0)] = i));

/**
 * Go base64.StdEncoding.Decode without producing the bytes: the decoded length, or the
 * byte offset Go reports in `illegal base64 data at input byte N`. '\r' and '\n' are
 * skipped as Go does; padding is required.
 *
 * @param s the JSON string value (treated as bytes; non-ASCII characters are illegal)
 * @returns `{ length }` in bytes, or `{ errorAt }`
 */
export function goBase64Check(s: string): { length: number } | { errorAt: number } {
  const n = s.length;
  let si = 0;
  let length = 0;
  for (;;) {
    // one quantum of up to 4 symbols
    let j = 0;
    let dlen = 4;
    for (; j < 4; j++) {
      if (si === n) {
        if (j === 0) return { length };
        return { errorAt: si - j };
      }
      const c = s.charCodeAt(si);
      si++;
      if (c < 256 && DECODE[c] !== 0xff) continue;
      if (c === 10 || c === 13) {
        j--;
        continue;
      }
      if (c !== 61 /* = */) return { errorAt: si - 1 };
      // padding
      if (j === 0 || j === 1) return { errorAt: si - 1 };
      if (j === 2) {
        while (si < n && (s.charCodeAt(si) === 10 || s.charCodeAt(si) === 13)) si++;
        if (si === n) return { errorAt: n };
        if (s.charCodeAt(si) !== 61) return { errorAt: si - 1 };
        si++;
      }
      while (si < n && (s.charCodeAt(si) === 10 || s.charCodeAt(si) === 13)) si++;
      if (si < n) return { errorAt: si };
      dlen = j;
      break;
    }
    length += dlen - 1;
    if (dlen < 4) return { length };
  }
}

/** Go's json error for a value of the wrong JSON type in a `map[string][]byte` field. */
function byteMapTypeError(kind: string, field: string, v: unknown): string {
  const t = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
  return `json: cannot unmarshal ${t} into Go struct field ${kind}.${field} of type []uint8`;
}

/**
 * Validates a `map[string][]byte` field (Secret.data, ConfigMap.binaryData) and returns the
 * total decoded size in bytes.
 *
 * @throws StatusError 400 BadRequest with upstream's decode message
 */
export function checkByteMap(kind: string, groupVersion: string, field: string, m: unknown): number {
  if (m === undefined || m === null) return 0;
  if (typeof m !== 'object' || Array.isArray(m)) {
    const t = Array.isArray(m) ? 'array' : typeof m === 'boolean' ? 'bool' : typeof m;
    throw decodeError(kind, groupVersion, `json: cannot unmarshal ${t} into Go struct field ${kind}.${field} of type map[string][]uint8`);
  }
  let total = 0;
  for (const v of Object.values(m as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') throw decodeError(kind, groupVersion, byteMapTypeError(kind, field, v));
    const r = goBase64Check(v);
    if ('errorAt' in r) throw decodeError(kind, groupVersion, `illegal base64 data at input byte ${r.errorAt}`);
    total += r.length;
  }
  return total;
}

/**
 * Parses every quantity of a `map[string]Quantity` (capacity, requests, …).
 *
 * @throws StatusError 400 BadRequest (`quantities must match the regular expression …`)
 */
export function checkQuantityMap(kind: string, groupVersion: string, m: Record<string, unknown> | undefined | null): void {
  if (!m) return;
  for (const v of Object.values(m)) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string' && typeof v !== 'number') throw decodeError(kind, groupVersion, 'quantities must be a string or a number');
    try {
      parseQuantityJSON(v);
    } catch (e) {
      if (e instanceof QuantityParseError) throw decodeError(kind, groupVersion, e.message);
      throw e;
    }
  }
}

/** Rewrites every quantity of the map in upstream's canonical form ("0.1" → "100m"); unparsable values are left alone. */
export function canonicalizeQuantityMap(m: Record<string, unknown> | undefined | null): void {
  if (!m) return;
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    try {
      m[k] = canonicalizeQuantityString(typeof v === 'number' ? String(v) : v.trim());
    } catch {
      /* validation reports it */
    }
  }
}

/** A quantity from JSON, or undefined when absent/unparsable. */
export function quantityOf(v: unknown): Quantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try {
    return parseQuantityJSON(v);
  } catch {
    return undefined;
  }
}
