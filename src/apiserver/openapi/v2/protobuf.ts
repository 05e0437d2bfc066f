/**
 * The protobuf form of /openapi/v2 (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`):
 * gnostic's `openapi_v2.Document` (./OpenAPIv2.proto), which kube-openapi makes from the
 * JSON document (`openapi_v2.ParseDocument` + `proto.Marshal`) and kubectl decodes for
 * client-side validation, `kubectl explain --output=plaintext-openapiv2` and the
 * fieldValidation support check. Free-form values (`default`, `enum`, `example` and
 * every `x-` extension) travel as `Any.yaml`: YAML text that clients `yaml.Unmarshal`;
 * written here in YAML's flow style.
 *
 * @see https://github.com/google/gnostic/blob/main/openapiv2/OpenAPIv2.proto
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/handler/handler.go (ToProtoBinary)
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/util/proto/document.go (VendorExtensionToMap)
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as PB from 'protobufjs';
import type { Schema } from '../schemas.js';
import { runNow, type Steps } from '../../../util/sliced.js';

type Msg = Record<string, unknown>;

let documentType: PB.Type | undefined;

/** Reads OpenAPIv2.proto beside this module or, for the bundle in dist/, beside it there. */
function readProto(): string {
  const urls = [new URL('./OpenAPIv2.proto', import.meta.url), new URL('../src/apiserver/openapi/v2/OpenAPIv2.proto', import.meta.url)];
  for (const u of urls) {
    try {
      return readFileSync(u, 'utf8');
    } catch {
      // next candidate
    }
  }
  throw new Error('openapi: v2/OpenAPIv2.proto not found');
}

/** protobufjs (required on first use, as in ../../protobuf) and the parsed `openapi.v2.Document`. */
export function openAPIv2DocumentType(): PB.Type {
  return runNow(documentTypeSteps());
}

/** {@link openAPIv2DocumentType} as steps: protobufjs required (~100 ms the first time), then the .proto parsed (as long). */
function* documentTypeSteps(): Steps<PB.Type> {
  if (documentType) return documentType;
  const protobuf = createRequire(import.meta.url)('protobufjs') as typeof PB;
  yield;
  const root = protobuf.Root.fromJSON(protobuf.common.get('google/protobuf/any.proto')!);
  protobuf.parse(readProto(), root, { keepCase: true });
  yield;
  root.resolveAll();
  documentType ??= root.lookupType('openapi.v2.Document');
  return documentType;
}

/**
 * A JSON value as YAML flow text (`{"group": "", "kind": "Pod", "version": "v1"}`):
 * JSON with a space after each `:` and `,`, which YAML 1.1 parsers (go-yaml) read.
 */
export function flowYAML(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flowYAML).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${flowYAML(x)}`)
      .join(', ')}}`;
  }
  return v === undefined ? 'null' : JSON.stringify(v);
}

function any(v: unknown): Msg {
  return { yaml: flowYAML(v) + '\n' };
}

function extensions(o: Schema): Msg[] | undefined {
  let out: Msg[] | undefined;
  for (const [k, v] of Object.entries(o)) if (k.startsWith('x-')) (out ??= []).push({ name: k, value: any(v) });
  return out;
}

/** Copies the fields present in `o` under their protobuf names. */
function copy(o: Schema, m: Msg, names: Record<string, string>): void {
  for (const [json, pb] of Object.entries(names)) {
    const v = o[json];
    if (v !== undefined) m[pb] = v;
  }
}

const SCHEMA_SCALARS: Record<string, string> = {
  $ref: '_ref',
  format: 'format',
  title: 'title',
  description: 'description',
  multipleOf: 'multiple_of',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
  required: 'required',
  discriminator: 'discriminator',
  readOnly: 'read_only',
};

function schema(s: Schema): Msg {
  const m: Msg = {};
  copy(s, m, SCHEMA_SCALARS);
  if (s.default !== undefined) m.default = any(s.default);
  if (Array.isArray(s.enum)) m.enum = s.enum.map(any);
  if (typeof s.additionalProperties === 'boolean') m.additional_properties = { boolean: s.additionalProperties };
  else if (s.additionalProperties !== null && typeof s.additionalProperties === 'object') m.additional_properties = { schema: schema(s.additionalProperties as Schema) };
  if (s.type !== undefined) m.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (Array.isArray(s.items)) m.items = { schema: (s.items as Schema[]).map(schema) };
  else if (s.items !== null && typeof s.items === 'object') m.items = { schema: [schema(s.items as Schema)] };
  if (Array.isArray(s.allOf)) m.all_of = (s.allOf as Schema[]).map(schema);
  if (s.properties !== null && typeof s.properties === 'object') {
    m.properties = { additional_properties: Object.entries(s.properties as Record<string, Schema>).map(([name, p]) => ({ name, value: schema(p) })) };
  }
  if (s.example !== undefined) m.example = any(s.example);
  const ext = extensions(s);
  if (ext) m.vendor_extension = ext;
  return m;
}

const PARAM_SCALARS: Record<string, string> = {
  required: 'required',
  in: 'in',
  description: 'description',
  name: 'name',
  allowEmptyValue: 'allow_empty_value',
  type: 'type',
  format: 'format',
  collectionFormat: 'collection_format',
  maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum',
  minimum: 'minimum',
  exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length',
  minLength: 'min_length',
  pattern: 'pattern',
  maxItems: 'max_items',
  minItems: 'min_items',
  uniqueItems: 'unique_items',
  multipleOf: 'multiple_of',
};

const SUB_SCHEMA: Record<string, string> = {
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
};

function parameter(p: Schema): Msg {
  if (p.in === 'body') {
    const body: Msg = {};
    copy(p, body, { description: 'description', name: 'name', in: 'in', required: 'required' });
    if (p.schema) body.schema = schema(p.schema as Schema);
    const ext = extensions(p);
    if (ext) body.vendor_extension = ext;
    return { parameter: { body_parameter: body } };
  }
  const sub: Msg = {};
  copy(p, sub, PARAM_SCALARS);
  if (p.in === 'path' || p.in === 'header') delete sub.allow_empty_value;
  if (p.default !== undefined) sub.default = any(p.default);
  if (Array.isArray(p.enum)) sub.enum = p.enum.map(any);
  const ext = extensions(p);
  if (ext) sub.vendor_extension = ext;
  const key = SUB_SCHEMA[p.in as string];
  if (!key) throw new Error(`openapi v2: parameter ${String(p.name)} in ${String(p.in)}`);
  return { parameter: { non_body_parameter: { [key]: sub } } };
}

function operation(op: Schema): Msg {
  const m: Msg = {};
  copy(op, m, {
    tags: 'tags',
    summary: 'summary',
    description: 'description',
    operationId: 'operation_id',
    produces: 'produces',
    consumes: 'consumes',
    schemes: 'schemes',
    deprecated: 'deprecated',
  });
  if (Array.isArray(op.parameters)) m.parameters = (op.parameters as Schema[]).map(parameter);
  const responses = (op.responses ?? {}) as Record<string, Schema>;
  m.responses = {
    response_code: Object.entries(responses).map(([name, r]) => {
      const resp: Msg = { description: r.description ?? '' };
      if (r.schema) resp.schema = { schema: schema(r.schema as Schema) };
      return { name, value: { response: resp } };
    }),
  };
  const ext = extensions(op);
  if (ext) m.vendor_extension = ext;
  return m;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItem(item: Schema): Msg {
  const m: Msg = {};
  for (const method of METHODS) if (item[method]) m[method] = operation(item[method] as Schema);
  if (Array.isArray(item.parameters)) m.parameters = (item.parameters as Schema[]).map(parameter);
  const ext = extensions(item);
  if (ext) m.vendor_extension = ext;
  return m;
}

/** The gnostic message (plain object, protobuf field names) of a Swagger 2.0 document. */
export function openAPIv2Message(doc: Schema): Msg {
  const m = headerMessage(doc);
  m.paths = { path: Object.entries((doc.paths ?? {}) as Record<string, Schema>).map(([name, item]) => ({ name, value: pathItem(item) })) };
  m.definitions = { additional_properties: Object.entries((doc.definitions ?? {}) as Record<string, Schema>).map(([name, s]) => ({ name, value: schema(s) })) };
  return m;
}

/** Everything of the document but its paths and definitions. */
function headerMessage(doc: Schema): Msg {
  const info = (doc.info ?? {}) as Schema;
  const m: Msg = {
    swagger: doc.swagger,
    info: { title: info.title ?? '', version: info.version ?? '' },
  };
  if (Array.isArray(doc.security)) {
    m.security = (doc.security as Record<string, string[]>[]).map((req) => ({
      additional_properties: Object.entries(req).map(([name, scopes]) => ({ name, value: { value: scopes } })),
    }));
  }
  const defs = (doc.securityDefinitions ?? {}) as Record<string, Schema>;
  m.security_definitions = {
    additional_properties: Object.entries(defs).map(([name, d]) => {
      if (d.type !== 'apiKey') throw new Error(`openapi v2: security definition ${name} of type ${String(d.type)}`);
      const key: Msg = {};
      copy(d, key, { type: 'type', name: 'name', in: 'in', description: 'description' });
      return { name, value: { api_key_security: key } };
    }),
  };
  return m;
}

/**
 * Encoded NamedPathItem / NamedSchema messages by their JSON text: the built-in paths and
 * definitions stay the same for the life of the process, so a rebuild after a CRD came or
 * went encodes only what changed. Holds the entries of the last document only.
 */
let entryCache = new Map<string, Uint8Array>();

/** Encodes a Swagger 2.0 document (JSON value) as gnostic's `openapi.v2.Document`. */
export function encodeOpenAPIv2(doc: Schema): Buffer {
  return runNow(encodeOpenAPIv2Steps(doc));
}

/** {@link encodeOpenAPIv2} as steps (../../../util/sliced.ts): one path or definition per step. */
export function* encodeOpenAPIv2Steps(doc: Schema): Steps<Buffer> {
  const T = yield* documentTypeSteps();
  yield;
  const root = T.root;
  const namedPathItem = root.lookupType('openapi.v2.NamedPathItem');
  const namedSchema = root.lookupType('openapi.v2.NamedSchema');
  const next = new Map<string, Uint8Array>();
  const entry = (kind: 'p' | 'd', name: string, value: Schema): Uint8Array => {
    const key = `${kind}\0${name}\0${JSON.stringify(value)}`;
    let bytes = entryCache.get(key) ?? next.get(key);
    if (!bytes) {
      bytes = kind === 'p' ? namedPathItem.encode({ name, value: pathItem(value) }).finish() : namedSchema.encode({ name, value: schema(value) }).finish();
    }
    next.set(key, bytes);
    return bytes;
  };
  // Document: header fields, then paths (field 8: Paths.path = 2) and definitions
  // (field 9: Definitions.additional_properties = 1) as concatenated length-delimited records
  const w = T.encode(headerMessage(doc));
  w.uint32((8 << 3) | 2).fork();
  for (const [name, item] of Object.entries((doc.paths ?? {}) as Record<string, Schema>)) {
    w.uint32((2 << 3) | 2).bytes(entry('p', name, item));
    yield;
  }
  w.ldelim();
  w.uint32((9 << 3) | 2).fork();
  for (const [name, s] of Object.entries((doc.definitions ?? {}) as Record<string, Schema>)) {
    w.uint32((1 << 3) | 2).bytes(entry('d', name, s));
    yield;
  }
  w.ldelim();
  entryCache = next;
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
