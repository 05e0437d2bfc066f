/**
 * Decoding request bodies into objects: JSON, YAML and Kubernetes protobuf
 * (`k8s\0` + runtime.Unknown), with upstream's error texts for undecodable data.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/runtime/serializer/json/json.go
 */
import { parse as parseYAML } from 'yaml';
import type { KObject } from '../../api/resource.js';
import { newBadRequest, newUnsupportedMediaType } from '../../apimachinery/errors.js';
import { decodeProtobufObject } from '../protobuf/index.js';
import { depthExceededAt, goJSONSyntaxError, MAX_JSON_DEPTH } from './json-syntax.js';
import { bodyFormat } from './negotiate.js';

/** Upstream's limit on request bodies: 3 MiB. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export const ACCEPTED_OBJECT_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * Parses a JSON body as Go's encoding/json would accept it: at most {@link MAX_JSON_DEPTH}
 * levels deep (checked on the bytes before parsing, so no deeper structure ever reaches
 * the recursive code behind), Go's syntax error texts.
 * @throws StatusError 400 `couldn't get version/kind; json parse error: <Go's syntax error>`
 */
export function parseJSONBody(text: string | Buffer): unknown {
  const msg = jsonBodyError(text);
  const v = parsedJSON;
  parsedJSON = undefined;
  if (msg !== undefined) throw newBadRequest(`couldn't get version/kind; json parse error: ${msg}`);
  return v;
}

/** the value {@link jsonBodyError} parsed (saves allocating a result object per body) */
let parsedJSON: unknown;

/** Go's syntax error for a JSON body, or undefined (the value is then in `parsedJSON`). */
function jsonBodyError(data: string | Buffer): string | undefined {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const at = depthExceededAt(bytes);
  const text = typeof data === 'string' ? data : data.toString('utf8');
  if (at >= 0) return goJSONSyntaxError(text) ?? `invalid character '${String.fromCharCode(bytes[at]!)}' exceeded max depth`;
  try {
    parsedJSON = JSON.parse(text);
    return undefined;
  } catch (e) {
    return goJSONSyntaxError(text) ?? (e instanceof Error ? e.message : String(e));
  }
}

/**
 * The start of an undecodable body as upstream quotes it in errors: the first 30 bytes as
 * text when it starts with `{`, else in hex; ` ...` when cut; `<empty>` for none.
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/rest.go (summarizeData)
 */
export function summarizeData(data: Buffer, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const cut = data.length > maxLength;
  const head = cut ? data.subarray(0, maxLength) : data;
  const s = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return cut ? `${s} ...` : s;
}

/** A decoded value nested deeper than `limit` (YAML bodies and patch results; JSON bodies are checked on their bytes). */
export function tooDeep(v: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d > limit) return true;
    for (const c of Array.isArray(x) ? x : Object.values(x as object)) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return false;
}

/**
 * Decodes an object body by Content-Type. With `kind` (the type the endpoint decodes
 * into), undecodable bodies get upstream's wording for them: `the object provided is
 * unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error:
 * unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)`.
 * @throws StatusError 415 for unsupported types, 400 for undecodable bodies, bodies nested
 *   deeper than {@link MAX_JSON_DEPTH} levels, or non-objects
 */
export function decodeObjectBody(contentType: string | undefined, body: Buffer | undefined, kind?: string): KObject {
  const fmt = bodyFormat(contentType) ?? (contentType ? undefined : 'json');
  if (!body || body.length === 0) throw newBadRequest('the body of the request was empty');
  let v: unknown;
  let err: string | undefined;
  switch (fmt) {
    case 'json': {
      const msg = jsonBodyError(body);
      if (msg !== undefined) err = `couldn't get version/kind; json parse error: ${msg}`;
      else v = parsedJSON;
      parsedJSON = undefined;
      break;
    }
    case 'yaml':
      try {
        v = parseYAML(body.toString('utf8'));
        if (tooDeep(v, MAX_JSON_DEPTH)) err = `error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`;
      } catch (e) {
        err = `error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}`;
      }
      break;
    case 'protobuf':
      v = decodeProtobufObject(body).object;
      break;
    default:
      throw newUnsupportedMediaType(contentType ?? '', ACCEPTED_OBJECT_TYPES);
  }
  if (err === undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) {
    err = `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'boolean' ? 'bool' : typeof v} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
  }
  if (err !== undefined) {
    throw newBadRequest(kind ? `the object provided is unrecognized (must be of type ${kind}): ${err} (${summarizeData(body)})` : err);
  }
  return v as KObject;
}

/** meta/v1 DeleteOptions as a DELETE body carries it (JSON field names). */
export interface DeleteOptionsBody {
  apiVersion?: string;
  kind?: string;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

/**
 * Decodes the DeleteOptions body of a DELETE (or deletecollection) by Content-Type: JSON,
 * YAML or protobuf. Like upstream, any group version's DeleteOptions is accepted
 * (client-go sends `v1` DeleteOptions to core resources, `apps/v1` ones to apps …),
 * and a body without apiVersion/kind is taken as meta.k8s.io/v1 DeleteOptions.
 *
 * @returns the options; `{}` for an empty body
 * @throws StatusError 415 for unsupported types; 400 for undecodable bodies or another kind
 *   (`decoded object cannot be converted to DeleteOptions`)
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/delete.go
 */
export function decodeDeleteOptions(contentType: string | undefined, body: Buffer | undefined): DeleteOptionsBody {
  if (!body || body.length === 0) return {};
  const o = decodeObjectBody(contentType, body) as DeleteOptionsBody;
  if (o.kind && o.kind !== 'DeleteOptions') throw newBadRequest('decoded object cannot be converted to DeleteOptions');
  return o;
}
