/**
 * OpenAPI 3.0 → Swagger 2.0: the pieces of the /openapi/v3 group-version documents
 * rewritten the way kube-apiserver publishes them under /openapi/v2 — schemas under
 * `#/definitions/`, `allOf: [{$ref}]` wrappers collapsed to a plain `$ref`, request
 * bodies as `in: body` parameters, `content` maps as `consumes`/`produces` plus a
 * response `schema`, and custom resource schemas reduced to what v2 clients (kubectl's
 * proto models) can read.
 *
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/builder/openapi.go (v2 builder)
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/openapi/v2/conversion.go
 * @see https://github.com/kubernetes/apiextensions-apiserver/blob/v0.32.0/pkg/controller/openapi/builder/builder.go (buildKubeNative)
 */
import type { Schema } from '../schemas.js';

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

/** Keys a Swagger 2.0 Schema Object may carry (besides `x-` extensions). */
const SCHEMA_KEYS = new Set([
  '$ref',
  'format',
  'title',
  'description',
  'default',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'additionalProperties',
  'type',
  'items',
  'allOf',
  'properties',
  'discriminator',
  'readOnly',
  'xml',
  'externalDocs',
  'example',
]);

function isObject(v: unknown): v is Schema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `#/components/schemas/X` → `#/definitions/X`; other references are kept. */
export function v2Ref(ref: string): string {
  return ref.startsWith(V3_REF) ? V2_REF + ref.slice(V3_REF.length) : ref;
}

/** The reference of a v3 `allOf: [{$ref}]` wrapper, if `s` is one. */
function singleRef(s: Schema): string | undefined {
  const allOf = s.allOf;
  return Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) && typeof allOf[0].$ref === 'string' ? (allOf[0].$ref as string) : undefined;
}

/**
 * One schema of a built-in (or list) definition in its v2 form:
 * - `allOf` holding one `$ref` becomes that `$ref` (the description stays beside it,
 *   the `default: {}` v3 adds to such fields goes);
 * - `oneOf`/`anyOf`/`not` and `nullable` are dropped (v2 has none of them); a schema
 *   left without a type whose alternatives include a string (IntOrString, Quantity)
 *   becomes `type: string`, as upstream publishes them in v2.
 */
export function toV2Schema(s: Schema): Schema {
  const out: Schema = {};
  const single = singleRef(s);
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-')) {
      out[k] = v;
      continue;
    }
    if (!SCHEMA_KEYS.has(k)) continue;
    switch (k) {
      case '$ref':
        out.$ref = v2Ref(v as string);
        break;
      case 'allOf':
        if (single !== undefined) out.$ref = v2Ref(single);
        else out.allOf = (v as Schema[]).map(toV2Schema);
        break;
      case 'default':
        if (single === undefined) out.default = v;
        break;
      case 'items':
        out.items = Array.isArray(v) ? v.map(toV2Schema) : isObject(v) ? toV2Schema(v) : v;
        break;
      case 'additionalProperties':
        out.additionalProperties = isObject(v) ? toV2Schema(v) : v;
        break;
      case 'properties': {
        const props: Record<string, Schema> = {};
        for (const [name, p] of Object.entries(v as Record<string, Schema>)) props[name] = toV2Schema(p);
        out.properties = props;
        break;
      }
      default:
        out[k] = v;
    }
  }
  if (out.type === undefined && out.$ref === undefined) {
    const alternatives = [...((s.oneOf as Schema[] | undefined) ?? []), ...((s.anyOf as Schema[] | undefined) ?? [])];
    if (alternatives.some((a) => isObject(a) && a.type === 'string')) out.type = 'string';
  }
  return out;
}

/**
 * A custom resource kind's (v3) schema, to be passed on to {@link toV2Schema}, made
 * readable by v2 clients, as apiextensions-apiserver does for /openapi/v2: a kind that
 * preserves unknown fields at its root is published as a bare `type: object` (plus its
 * group-version-kind) — properties would make kubectl reject every other field; below
 * the root, junctors go, nullable nodes lose type, items and properties, nodes
 * preserving unknown fields lose items and properties (and an object type), arrays
 * left without items lose their type, and nullable fields leave `required`.
 * Nodes that are references (the standard `metadata`) are kept as they are.
 */
export function toV2CustomKindSchema(s: Schema): Schema {
  if (s['x-kubernetes-preserve-unknown-fields'] === true) {
    const out: Schema = { type: 'object' };
    if (s['x-kubernetes-group-version-kind'] !== undefined) out['x-kubernetes-group-version-kind'] = s['x-kubernetes-group-version-kind'];
    return out;
  }
  return structural(s);
}

function structural(s: Schema): Schema {
  if (typeof s.$ref === 'string' || singleRef(s) !== undefined) return s;
  const out: Schema = { ...s };
  for (const junctor of ['allOf', 'oneOf', 'anyOf', 'not']) delete out[junctor];
  if (out.nullable === true) {
    delete out.type;
    delete out.items;
    delete out.properties;
  }
  delete out.nullable;
  if (out['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out.items;
    delete out.properties;
  }
  if (out.items === undefined && out.type === 'array') delete out.type;
  if (out['x-kubernetes-preserve-unknown-fields'] === true && out.type === 'object') delete out.type;
  const props = isObject(out.properties) ? (out.properties as Record<string, Schema>) : undefined;
  if (props && Array.isArray(out.required)) {
    const required = (out.required as string[]).filter((f) => props[f]?.nullable !== true);
    if (required.length) out.required = required;
    else delete out.required;
  }
  if (isObject(out.additionalProperties) && out.additionalProperties.nullable === true) delete out.required;
  if (props) {
    const next: Record<string, Schema> = {};
    for (const [name, p] of Object.entries(props)) next[name] = structural(p);
    out.properties = next;
  }
  if (isObject(out.items)) out.items = structural(out.items);
  if (isObject(out.additionalProperties)) out.additionalProperties = structural(out.additionalProperties);
  return out;
}

type V3Param = { description?: string; in: string; name: string; required?: boolean; schema?: Schema };

/** A v3 query/path parameter (`schema: {type, uniqueItems}`) as a v2 one (the schema's fields inline). */
export function toV2Parameter(p: V3Param): Schema {
  const out: Schema = {};
  if (p.description !== undefined) out.description = p.description;
  out.in = p.in;
  out.name = p.name;
  if (p.required) out.required = true;
  for (const [k, v] of Object.entries(p.schema ?? {})) out[k] = v;
  return out;
}

/** The schema `$ref` of the first media type of a v3 `content` map, in v2 form. */
function contentSchema(content: Record<string, { schema?: Schema }> | undefined): Schema | undefined {
  if (!content) return undefined;
  for (const media of Object.values(content)) if (media.schema) return toV2Schema(media.schema);
  return undefined;
}

/**
 * A v3 operation as a v2 one: `consumes` (the request body's media types, `*\/*`
 * without one), `produces` (the union of the responses' media types), `schemes`,
 * parameters with the body first (`in: body`, `name: body`), responses with a `schema`.
 */
export function toV2Operation(op: Schema): Schema {
  const requestBody = op.requestBody as { content?: Record<string, { schema?: Schema }>; required?: boolean } | undefined;
  const responses = (op.responses ?? {}) as Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  const produces: string[] = [];
  const v2Responses: Record<string, Schema> = {};
  for (const [code, r] of Object.entries(responses)) {
    const out: Schema = { description: r.description ?? '' };
    const schema = contentSchema(r.content);
    if (schema) out.schema = schema;
    for (const t of Object.keys(r.content ?? {})) if (!produces.includes(t)) produces.push(t);
    v2Responses[code] = out;
  }
  const parameters: Schema[] = [];
  if (requestBody) {
    const body: Schema = { in: 'body', name: 'body' };
    if (requestBody.required) body.required = true;
    const schema = contentSchema(requestBody.content);
    if (schema) body.schema = schema;
    parameters.push(body);
  }
  for (const p of (op.parameters as V3Param[] | undefined) ?? []) parameters.push(toV2Parameter(p));

  const out: Schema = {};
  if (op.description !== undefined) out.description = op.description;
  const bodyTypes = Object.keys(requestBody?.content ?? {}).filter((t) => t !== '*/*');
  out.consumes = bodyTypes.length ? bodyTypes : ['*/*'];
  if (produces.length) out.produces = produces;
  out.schemes = ['https'];
  if (op.tags !== undefined) out.tags = op.tags;
  if (op.operationId !== undefined) out.operationId = op.operationId;
  if (parameters.length) out.parameters = parameters;
  out.responses = v2Responses;
  for (const [k, v] of Object.entries(op)) if (k.startsWith('x-')) out[k] = v;
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** A v3 path item (operations and path-level parameters) as a v2 one. */
export function toV2PathItem(item: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(item)) {
    if (METHODS.includes(k)) out[k] = toV2Operation(v as Schema);
    else if (k === 'parameters') out.parameters = (v as V3Param[]).map(toV2Parameter);
    else if (k.startsWith('x-')) out[k] = v;
  }
  return out;
}
