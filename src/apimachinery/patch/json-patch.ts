/**
 * JSON Patch (RFC 6902, `application/json-patch+json`) as kube-apiserver applies it with
 * gopkg.in/evanphx/json-patch.v4 (v4.12), quirks included: negative array indices count
 * from the end, `replace` of a missing object key adds it, `copy` from a missing key adds
 * null, a path without a leading `/` ignores its first segment.
 *
 * Errors as the API server gives them: an undecodable body is 400 BadRequest (with
 * `error decoding patch: ` in front when the request's fieldValidation is Strict or Warn,
 * the default); more than 10000 operations is 413; an operation that does not apply
 * (missing path, failed test, bad index, copy size limit) is 422 Invalid with the generic
 * text `the server rejected our request due to an error in our request`.
 *
 * @see https://github.com/kubernetes/apiserver/blob/release-1.32/pkg/endpoints/handlers/patch.go (applyJSPatch)
 * @see https://github.com/evanphx/json-patch/blob/v4.12.0/patch.go
 * @see https://datatracker.ietf.org/doc/html/rfc6902
 */
import { newRequestEntityTooLarge } from '../errors.js';
import { GoJsonError, goJsonDecode, goUnmarshalFieldTypeError, goUnmarshalTypeError } from './go-json.js';
import { type Json, type JsonObject, cloneJson, deepEqual, isObject, setOwn } from './json-value.js';
import { patchBadRequest, patchInternal, patchUnprocessable } from './patch-errors.js';

/** One operation as decoded from the body (unknown members kept; `null` stays `null`). */
export type JsonPatchOperation = JsonObject | null;

/** Limits and validation mode of a JSON patch request. */
export interface JsonPatchOptions {
  /** fieldValidation of the request; Strict and Warn (the default) decode the body strictly first. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Most operations in one patch (upstream maxJSONPatchOperations = 10000). */
  maxOperations?: number;
  /** Most bytes `copy` operations may add in total (upstream --json-patch-max-copy-bytes, 3 MiB). */
  maxCopyBytes?: number;
}

/** Result of {@link jsonPatchBody}. */
export interface JsonPatchResult {
  object: Json;
  /** Strict decoding findings, e.g. `json patch unknown field "[0].foo"`: the API server fails (Strict) or warns (Warn). */
  strictErrors: string[];
}

const defaultMaxOperations = 10000;
const defaultMaxCopyBytes = 3 * 1024 * 1024;
const opFields = new Set(['op', 'path', 'from', 'value']);

/**
 * Decodes a JSON patch body as the API server does.
 *
 * @throws StatusError 400 for bodies that do not decode (`error decoding patch: json: cannot
 *   unmarshal object into Go value of type []handlers.jsonPatchOp`), 413 above the operation limit.
 */
export function decodeJsonPatch(body: string | Uint8Array, opts: JsonPatchOptions = {}): { operations: JsonPatchOperation[]; strictErrors: string[] } {
  const strict = opts.fieldValidation !== 'Ignore';
  let decoded;
  try {
    decoded = goJsonDecode(body, { strict, knownFields: (path) => (/^\[\d+\]$/.test(path) ? opFields : undefined) });
  } catch (e) {
    if (e instanceof GoJsonError) throw patchBadRequest(strict ? `error decoding patch: ${e.message}` : e.message);
    throw e;
  }
  const v = decoded.value;
  const strictErrors: string[] = [];
  if (strict) {
    const typeErr = strictOpTypeError(v);
    if (typeErr) throw patchBadRequest(`error decoding patch: ${typeErr}`);
    for (const s of decoded.strictErrors) strictErrors.push(`json patch ${s}`);
  }
  // jsonpatch.DecodePatch: a list of objects (or null).
  if (v !== null && !Array.isArray(v)) throw patchBadRequest(goUnmarshalTypeError(v, 'jsonpatch.Patch'));
  const operations = (v ?? []) as Json[];
  for (const op of operations) {
    if (op !== null && !isObject(op)) throw patchBadRequest(goUnmarshalTypeError(op, 'jsonpatch.Operation'));
  }
  const max = opts.maxOperations ?? defaultMaxOperations;
  if (operations.length > max) {
    throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${max}, got ${operations.length}`);
  }
  return { operations: operations as JsonPatchOperation[], strictErrors };
}

/** The first type error decoding into `[]handlers.jsonPatchOp` would report, in document order. */
function strictOpTypeError(v: Json): string | null {
  if (v === null) return null;
  if (!Array.isArray(v)) return goUnmarshalTypeError(v, '[]handlers.jsonPatchOp');
  for (const op of v) {
    if (op === null) continue;
    if (!isObject(op)) return goUnmarshalTypeError(op, 'handlers.jsonPatchOp');
    for (const f of Object.keys(op)) {
      if (f !== 'op' && f !== 'path' && f !== 'from') continue;
      const x = op[f]!;
      if (x !== null && typeof x !== 'string') return goUnmarshalFieldTypeError(x, 'jsonPatchOp', f, 'string');
    }
  }
  return null;
}

/**
 * Decodes `body` and applies it to `original` (not modified).
 *
 * @throws StatusError 400/413 as {@link decodeJsonPatch}; 422 when an operation fails.
 */
export function jsonPatchBody(original: Json, body: string | Uint8Array, opts: JsonPatchOptions = {}): JsonPatchResult {
  const { operations, strictErrors } = decodeJsonPatch(body, opts);
  return { object: applyJsonPatch(original, operations, opts), strictErrors };
}

/**
 * Applies decoded operations to a copy of `original` and returns the result.
 *
 * @throws StatusError 422 Invalid (generic message; the reason is the Error's `cause`)
 *   when an operation does not apply.
 */
export function applyJsonPatch(original: Json, operations: readonly JsonPatchOperation[], opts: JsonPatchOptions = {}): Json {
  const state: ApplyState = { doc: cloneJson(original), copied: 0, maxCopyBytes: opts.maxCopyBytes ?? defaultMaxCopyBytes };
  for (const op of operations) {
    const kind = opString(op, 'op') ?? 'unknown';
    switch (kind) {
      case 'add':
        opAdd(state, op!);
        break;
      case 'remove':
        opRemove(state, op!);
        break;
      case 'replace':
        opReplace(state, op!);
        break;
      case 'move':
        opMove(state, op!);
        break;
      case 'test':
        opTest(state, op!);
        break;
      case 'copy':
        opCopy(state, op!);
        break;
      default:
        throw patchUnprocessable(`Unexpected kind: ${kind}`);
    }
  }
  return state.doc;
}

interface ApplyState {
  doc: Json;
  copied: number;
  maxCopyBytes: number;
}

/** A JSON object or array that holds the target of a path, and the decoded last token. */
interface Target {
  con: JsonObject | Json[];
  key: string;
}

/** The string member `f` of an operation, or undefined when absent, null or not a string. */
function opString(op: JsonPatchOperation, f: string): string | undefined {
  if (!op || !Object.hasOwn(op, f)) return undefined;
  const v = op[f];
  return typeof v === 'string' ? v : undefined;
}

function requirePath(op: JsonObject, f: 'path' | 'from', what: string): string {
  const p = opString(op, f);
  if (p === undefined) throw patchUnprocessable(`${what} operation failed to decode ${f}: missing value`);
  return p;
}

/** The value member: undefined when absent (upstream's nil node), else the value (maybe null). */
function opValue(op: JsonObject): Json | undefined {
  return Object.hasOwn(op, 'value') ? op.value : undefined;
}

const decodeToken = (t: string): string => t.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));

/** Upstream findObject: walks all tokens but the last; null when an intermediate is missing or not a container. */
function findObject(doc: Json, path: string): Target | null {
  const split = path.split('/');
  if (split.length < 2) return null;
  let cur: Json = doc;
  for (let i = 1; i < split.length - 1; i++) {
    const next = containerGet(cur as JsonObject | Json[], decodeToken(split[i]!));
    if (next === undefined || next === null || typeof next !== 'object') return null;
    cur = next;
  }
  if (cur === null || typeof cur !== 'object') return null;
  return { con: cur, key: decodeToken(split[split.length - 1]!) };
}

/** Lookup used while walking: undefined for anything upstream reports as an error or nil. */
function containerGet(con: JsonObject | Json[], key: string): Json | undefined {
  if (Array.isArray(con)) {
    const i = arrayIndex(key, con.length, false);
    return typeof i === 'number' ? con[i] : undefined;
  }
  return Object.hasOwn(con, key) ? con[key] : undefined;
}

/** Go strconv.Atoi. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Resolves an array index as upstream (negative counts from the end). `forAdd`: the
 * array is about to grow by one. Returns the index or an error text.
 */
function arrayIndex(key: string, len: number, forAdd: boolean): number | string {
  const idx = atoi(key);
  if (idx === undefined) return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  const size = forAdd ? len + 1 : len;
  if (idx >= size) return `Unable to access invalid index: ${idx}: invalid index referenced`;
  if (idx < 0) {
    if (idx < -size) return `Unable to access invalid index: ${idx}: invalid index referenced`;
    return idx + size;
  }
  return idx;
}

function conAdd(t: Target, value: Json, path: string): void {
  if (Array.isArray(t.con)) {
    if (t.key === '-') {
      t.con.push(value);
      return;
    }
    if (atoi(t.key) === undefined) throw patchUnprocessable(`error in add for path: '${path}': value was not a proper array index: '${t.key}'`);
    const i = arrayIndex(t.key, t.con.length, true);
    if (typeof i === 'string') throw patchUnprocessable(`error in add for path: '${path}': ${i}`);
    t.con.splice(i, 0, value);
    return;
  }
  setOwn(t.con, t.key, value);
}

function conRemove(t: Target, path: string, what: string): void {
  if (Array.isArray(t.con)) {
    const i = arrayIndex(t.key, t.con.length, false);
    if (typeof i === 'string') throw patchUnprocessable(`error in ${what} for path: '${path}': ${i}`);
    t.con.splice(i, 1);
    return;
  }
  if (!Object.hasOwn(t.con, t.key)) {
    throw patchUnprocessable(`error in ${what} for path: '${path}': Unable to remove nonexistent key: ${t.key}: missing value`);
  }
  delete t.con[t.key];
}

/** Upstream con.get: objects never fail (missing → nil); arrays fail on bad indices. Null means nil. */
function conGet(t: Target, path: string, what: string): Json {
  if (Array.isArray(t.con)) {
    const i = arrayIndex(t.key, t.con.length, false);
    if (typeof i === 'string') throw patchUnprocessable(`error in ${what} for path: '${path}': ${i}`);
    return t.con[i]!;
  }
  return Object.hasOwn(t.con, t.key) ? t.con[t.key]! : null;
}

function opAdd(s: ApplyState, op: JsonObject): void {
  const path = requirePath(op, 'path', 'add');
  const t = findObject(s.doc, path);
  if (!t) throw patchUnprocessable(`add operation does not apply: doc is missing path: "${path}": missing value`);
  conAdd(t, opValue(op) ?? null, path);
}

function opRemove(s: ApplyState, op: JsonObject): void {
  const path = requirePath(op, 'path', 'remove');
  const t = findObject(s.doc, path);
  if (!t) throw patchUnprocessable(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  conRemove(t, path, 'remove');
}

function opReplace(s: ApplyState, op: JsonObject): void {
  const path = requirePath(op, 'path', 'replace');
  if (path === '') {
    const v = opValue(op);
    if (v === undefined) throw patchInternal('This request caused apiserver to panic. Look in the logs for details.');
    // Upstream wraps a nil error here, so a scalar value is silently ignored.
    if (v !== null && typeof v === 'object') s.doc = v;
    return;
  }
  const t = findObject(s.doc, path);
  if (!t) throw patchUnprocessable(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  if (Array.isArray(t.con)) {
    const i = arrayIndex(t.key, t.con.length, false);
    if (typeof i === 'string') throw patchUnprocessable(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    t.con[i] = opValue(op) ?? null;
    return;
  }
  setOwn(t.con, t.key, opValue(op) ?? null);
}

function opMove(s: ApplyState, op: JsonObject): void {
  const from = requirePath(op, 'from', 'move');
  const src = findObject(s.doc, from);
  if (!src) throw patchUnprocessable(`move operation does not apply: doc is missing from path: ${from}: missing value`);
  const val = conGet(src, src.key, 'move');
  conRemove(src, src.key, 'move');
  const path = requirePath(op, 'path', 'move');
  const dst = findObject(s.doc, path);
  if (!dst) throw patchUnprocessable(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
  conAdd(dst, val, path);
}

function opCopy(s: ApplyState, op: JsonObject): void {
  const from = requirePath(op, 'from', 'copy');
  const src = findObject(s.doc, from);
  if (!src) throw patchUnprocessable(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
  const val = conGet(src, from, 'copy');
  const path = requirePath(op, 'path', 'copy');
  const dst = findObject(s.doc, path);
  if (!dst) throw patchUnprocessable(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
  s.copied += Buffer.byteLength(JSON.stringify(val));
  if (s.maxCopyBytes > 0 && s.copied > s.maxCopyBytes) {
    throw patchUnprocessable(`Unable to complete the copy, the accumulated size increase of copy is ${s.copied}, exceeding the limit ${s.maxCopyBytes}`);
  }
  conAdd(dst, cloneJson(val), path);
}

function opTest(s: ApplyState, op: JsonObject): void {
  const path = requirePath(op, 'path', 'test');
  const want = opValue(op);
  if (path === '') {
    if (want === undefined) throw patchInternal('This request caused apiserver to panic. Look in the logs for details.');
    if (deepEqual(s.doc, want)) return;
    throw patchUnprocessable(`testing value ${path} failed: test failed`);
  }
  const t = findObject(s.doc, path);
  if (!t) throw patchUnprocessable(`test operation does not apply: is missing path: ${path}: missing value`);
  const got = conGet(t, path, 'test');
  if (got === null) {
    // A missing (or null) member passes only against an explicit null.
    if (want === undefined) throw patchInternal('This request caused apiserver to panic. Look in the logs for details.');
    if (want === null) return;
    throw patchUnprocessable(`testing value ${path} failed: test failed`);
  }
  if (want !== undefined && deepEqual(got, want)) return;
  throw patchUnprocessable(`testing value ${path} failed: test failed`);
}
