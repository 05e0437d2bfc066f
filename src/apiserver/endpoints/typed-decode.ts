/**
 * The typed decoding step of writes to built-in kinds: a request object (create, update)
 * or a patched object (patch) whose fields have the wrong JSON type is refused with the
 * error upstream's decoders give when they decode it into the kind's Go struct — never
 * stored. The check itself is openapi/typecheck.ts; this module words the errors as the
 * handler upstream words them:
 *
 * - create / update: 400 `Pod in version "v1" cannot be handled as a Pod: json: cannot
 *   unmarshal array into Go struct field NodeAffinity.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution of type v1.NodeSelector`
 * - JSON and merge patches (the patched JSON is decoded): 422 ` "" is invalid: patch:
 *   Invalid value: "<patched object>": json: cannot unmarshal …`
 * - strategic merge patches (the patched map is converted): 422 ` "" is invalid: patch:
 *   Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string`
 * - apply patches: 400 `failed to create typed patch object (/v1, Kind=ConfigMap):
 *   .data: expected map, got string` (upstream answers this one 500; a client error here)
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/create.go (transformDecodeError)
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/patch.go
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/runtime/converter.go (fromUnstructured)
 */
import type { KObject, ResourceDefinition } from '../../api/resource.js';
import { newBadRequest, newInvalid, type StatusError } from '../../apimachinery/errors.js';
import { invalid } from '../../apimachinery/field-errors.js';
import { goSprint } from '../../apimachinery/patch/go-format.js';
import { decodeObjectBody, tooDeep } from '../http/body.js';
import { MAX_JSON_DEPTH } from '../http/json-syntax.js';
import type { BodyFormat } from '../http/negotiate.js';
import { findTypeMismatch, Kind, typeOfKind, type TypeMismatch } from '../openapi/typecheck.js';

/** What names a kind: its group, version, kind (and schema, when it has one of its own). */
export type KindOf = Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'schemaRef'>;

/**
 * Decodes a request body into a built-in kind: by Content-Type (http/body.ts), with
 * upstream's wording for undecodable bodies, then type-checked ({@link checkTypes}).
 * For subresource bodies (Scale, Binding, Eviction, TokenRequest).
 * @throws StatusError 415, 400
 */
export function decodeTypedBody(contentType: string | undefined, body: Buffer | undefined, kind: KindOf): KObject {
  const obj = decodeObjectBody(contentType, body, kind.kind);
  checkTypes(kind, obj);
  return obj;
}

/** The first type mismatch of a built-in object (undefined for custom kinds or when none). */
function mismatchOf(def: KindOf, obj: KObject): TypeMismatch | undefined {
  const t = typeOfKind(def);
  if (!t) return undefined;
  return findTypeMismatch(obj, t, [], t.goName);
}

/** encoding/json's wording: `json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string`. */
export function jsonDecodeMessage(m: TypeMismatch): string {
  if (m.message !== undefined) return m.message;
  if (!m.field) return `json: cannot unmarshal ${m.value} into Go value of type ${m.goType}`;
  return `json: cannot unmarshal ${m.value} into Go struct field ${m.struct}.${m.field} of type ${m.goType}`;
}

/** Go's reflect kind of a decoded JSON value (integers are int64: the decoder preserves ints). */
function goKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map';
  }
}

/** reflect's String() of a decoded JSON value's type. */
function goValueType(v: unknown): string {
  const k = goKind(v);
  return k === 'slice' ? '[]interface {}' : k === 'map' ? 'map[string]interface {}' : k;
}

/**
 * The unstructured converter's wording (strategic merge patches): `cannot restore map
 * from string`, `cannot restore slice from int64`, `cannot restore struct from: bool`,
 * `cannot convert string to int32`; types with their own decoder answer as they do
 * from JSON, without a field (`json: cannot unmarshal bool into Go value of type int32`).
 */
export function unstructuredMessage(m: TypeMismatch): string {
  if (m.message !== undefined) return m.message;
  switch (m.target) {
    case Kind.Map:
      return `cannot restore map from ${goKind(m.got)}`;
    case Kind.Slice:
    case Kind.Bytes:
      return `cannot restore slice from ${goKind(m.got)}`;
    case Kind.Struct:
      return `cannot restore struct from: ${goKind(m.got)}`;
    case Kind.IntOrString:
    case Kind.Time:
      return `json: cannot unmarshal ${m.value} into Go value of type ${m.goType}`;
    default:
      return `cannot convert ${goValueType(m.got)} to ${m.goType}`;
  }
}

/** structured-merge-diff's wording of a type mismatch in an apply patch. */
function applyMessage(def: ResourceDefinition, m: TypeMismatch): string {
  const gv = def.group ? `${def.group}/${def.version}` : `/${def.version}`;
  const want = m.target === Kind.Struct || m.target === Kind.Map ? 'map' : m.target === Kind.Slice ? 'list' : m.goType;
  const detail = m.message ?? `expected ${want}, got ${goKind(m.got)}`;
  return `failed to create typed patch object (${gv}, Kind=${def.kind}): .${m.field}: ${detail}`;
}

/**
 * Decodes a create or update body into the kind's type.
 * @throws StatusError 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: json: cannot unmarshal …`
 */
export function checkTypes(def: KindOf, obj: KObject): void {
  const m = mismatchOf(def, obj);
  if (m) throw newBadRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${jsonDecodeMessage(m)}`);
}

/**
 * Decodes a patched object into the kind's type, with the error of the patch type's
 * decoding path (see the module comment).
 * @param patchBody the decoded patch (strategic merge patches print it in the error)
 * @throws StatusError 422 for JSON, merge and strategic merge patches, 400 for apply patches;
 *   the same for results nested deeper than the body limit (http/json-syntax.ts)
 */
export function checkPatchedTypes(def: ResourceDefinition, fmt: BodyFormat | undefined, patched: KObject, patchBody: unknown): void {
  if (tooDeep(patched, MAX_JSON_DEPTH)) {
    // patches nest on what is stored: the result is held to the body limit
    const msg = `couldn't get version/kind; json parse error: invalid character '{' exceeded max depth`;
    if (fmt === 'apply-patch') throw newBadRequest(`error decoding YAML: ${msg}`);
    throw newInvalid({ group: '', kind: '' }, '', [invalid('patch', '<nested too deeply>', msg)]);
  }
  const m = mismatchOf(def, patched);
  if (!m) return;
  throw patchTypeError(def, fmt, patched, patchBody, m);
}

function patchTypeError(def: ResourceDefinition, fmt: BodyFormat | undefined, patched: KObject, patchBody: unknown, m: TypeMismatch): StatusError {
  switch (fmt) {
    case 'apply-patch':
      return newBadRequest(applyMessage(def, m));
    case 'strategic-merge-patch':
      return newInvalid({ group: '', kind: '' }, '', [invalid('patch', goSprint(patchBody), unstructuredMessage(m))]);
    default:
      return newInvalid({ group: '', kind: '' }, '', [invalid('patch', JSON.stringify(patched), jsonDecodeMessage(m))]);
  }
}
