/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`) as kube-apiserver applies
 * it with gopkg.in/evanphx/json-patch.v4: objects merge recursively, `null` deletes a
 * key, anything else (arrays included) replaces; nulls inside newly added objects are
 * dropped. A top-level array patch replaces the whole document.
 *
 * Errors: with fieldValidation Strict or Warn (the default) a body that is not a JSON
 * object is 400 `error decoding patch: …`; otherwise malformed bodies, `null` and
 * scalars are 400 `Invalid JSON Patch`.
 *
 * @see https://github.com/evanphx/json-patch/blob/v4.12.0/merge.go
 * @see https://github.com/kubernetes/apiserver/blob/release-1.32/pkg/endpoints/handlers/patch.go (applyJSPatch)
 * @see https://datatracker.ietf.org/doc/html/rfc7386
 */
import { GoJsonError, goJsonDecode, goUnmarshalTypeError } from './go-json.js';
import { type Json, type JsonObject, cloneJson, isObject, setOwn } from './json-value.js';
import { patchBadRequest } from './patch-errors.js';

/** Options of {@link mergePatchBody}. */
export interface MergePatchOptions {
  /** fieldValidation of the request; Strict and Warn (the default) decode the body strictly first. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

/** Result of {@link mergePatchBody}. */
export interface MergePatchResult {
  object: Json;
  /** e.g. `duplicate field "metadata.labels.a"`: the API server fails (Strict) or warns (Warn) with them. */
  strictErrors: string[];
}

const badPatch = 'Invalid JSON Patch';

/**
 * Applies a decoded merge patch to a copy of `original` (an object) and returns the result.
 *
 * @throws StatusError 400 `Invalid JSON Patch` for a `null` or scalar patch, as upstream.
 */
export function applyMergePatch(original: JsonObject, patch: Json): Json {
  if (Array.isArray(patch)) return pruneArrayNulls(cloneJson(patch));
  if (!isObject(patch)) throw patchBadRequest(badPatch);
  const doc = cloneJson(original);
  mergeDocs(doc, cloneJson(patch));
  return doc;
}

/**
 * Decodes a request body and applies it as {@link applyMergePatch}.
 *
 * @throws StatusError 400 as described in the module documentation.
 */
export function mergePatchBody(original: JsonObject, body: string | Uint8Array, opts: MergePatchOptions = {}): MergePatchResult {
  const strict = opts.fieldValidation !== 'Ignore';
  let decoded;
  try {
    decoded = goJsonDecode(body, { strict });
  } catch (e) {
    if (e instanceof GoJsonError) throw patchBadRequest(strict ? `error decoding patch: ${e.message}` : badPatch);
    throw e;
  }
  const v = decoded.value;
  if (strict && v !== null && !isObject(v)) {
    throw patchBadRequest(`error decoding patch: ${goUnmarshalTypeError(v, 'map[string]interface {}')}`);
  }
  return { object: applyMergePatch(original, v), strictErrors: decoded.strictErrors };
}

function mergeDocs(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k]!;
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = Object.hasOwn(doc, k) ? doc[k]! : null;
    if (cur === null) {
      pruneNulls(v);
      setOwn(doc, k, v);
    } else {
      setOwn(doc, k, merge(cur, v));
    }
  }
}

function merge(cur: Json, patch: Json): Json {
  if (!isObject(cur)) {
    pruneNulls(patch);
    return patch;
  }
  if (!isObject(patch)) return patch;
  mergeDocs(cur, patch);
  return cur;
}

function pruneNulls(v: Json): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      const x = v[k]!;
      if (x === null) delete v[k];
      else pruneNulls(x);
    }
  } else if (Array.isArray(v)) {
    pruneArrayNulls(v);
  }
}

function pruneArrayNulls(a: Json[]): Json[] {
  for (const x of a) if (x !== null) pruneNulls(x);
  return a;
}
