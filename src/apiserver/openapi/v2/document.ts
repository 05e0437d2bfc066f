/**
 * The Swagger 2.0 document kube-apiserver serves at /openapi/v2: one document for the
 * whole server — every served resource's paths and every definition they reference —
 * made from the same group-version documents as /openapi/v3 ({@link buildGroupVersionDocument}),
 * rewritten to v2 by ./convert.ts. Built lazily and kept per definition set, so a CRD
 * coming or going (a new definitions array) gives a new document on the next request;
 * the protobuf and gzip forms are made on first demand. The API server builds it with
 * {@link swaggerDocumentAsync}: in slices between which the event loop serves other
 * requests (the whole build takes hundreds of ms), one build shared by concurrent callers.
 *
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/handler/handler.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/api/openapi-spec/swagger.json
 */
import { gzip, gzipSync } from 'node:zlib';
import type { ResourceDefinition } from '../../../api/resource.js';
import { buildGroupVersionDocument, byGroupVersion, fingerprint, OPENAPI_INFO_VERSION, sha512Hex } from '../document.js';
import { customSchemaName } from '../names.js';
import { builtinSchemaName, builtinSchemas, type Schema } from '../schemas.js';
import { toV2CustomKindSchema, toV2PathItem, toV2Schema } from './convert.js';
import { encodeOpenAPIv2, encodeOpenAPIv2Steps } from './protobuf.js';
import { type ExtensionOpenAPI, mergeSwagger } from '../extensions.js';
import { runNow, runSliced, type Steps } from '../../../util/sliced.js';

const merged = new WeakMap<SwaggerDocument, { ext: ExtensionOpenAPI; revision: number; doc: SwaggerDocument }>();

/** `own` with the extension servers' v2 paths and definitions (../extensions.ts), cached per revision. */
export function withExtensionsV2(own: SwaggerDocument, ext: ExtensionOpenAPI | undefined, now: Date): SwaggerDocument {
  if (!ext || ext.v2().length === 0) return own;
  const hit = merged.get(own);
  if (hit && hit.ext === ext && hit.revision === ext.revision) return hit.doc;
  const doc = swaggerDocumentOf(mergeSwagger(JSON.parse(own.json.toString('utf8')) as Schema, ext.v2()), now);
  merged.set(own, { ext, revision: ext.revision, doc });
  return doc;
}

/** The v2 document of one definition set, serialized, with its forms computed on demand. */
export interface SwaggerDocument {
  /** the document as JSON bytes */
  json: Buffer;
  /** SHA-512 of `json`, upper-case hex: the ETag of every form (as kube-openapi) */
  etag: string;
  /** when this document was built (the Last-Modified header) */
  lastModified: Date;
  /** gnostic's openapi_v2.Document, protobuf-encoded (built on first call, then kept) */
  protobuf(): Buffer;
  /** gzip of `json` or of `protobuf()` (built on first call, then kept) */
  gzip(form: 'json' | 'protobuf'): Buffer;
  /** `protobuf()` encoded in slices that yield to the event loop (one encoding shared by concurrent callers) */
  protobufAsync(): Promise<Buffer>;
  /** `gzip(form)` compressed off the event loop (one compression shared by concurrent callers) */
  gzipAsync(form: 'json' | 'protobuf'): Promise<Buffer>;
}

/**
 * Builds the Swagger 2.0 document of a definition set as a JSON value:
 * `{swagger: '2.0', info, paths, definitions, securityDefinitions, security}` (Go's
 * field order of spec.Swagger), paths and definitions in sorted order.
 */
export function buildSwaggerDocument(defs: readonly ResourceDefinition[]): Schema {
  return runNow(swaggerDocumentSteps(defs));
}

/** {@link buildSwaggerDocument} as steps: one group-version per step. */
function* swaggerDocumentSteps(defs: readonly ResourceDefinition[]): Steps<Schema> {
  const set = builtinSchemas();
  const custom = new Set<string>();
  for (const d of defs) if (!builtinSchemaName(d, set)) custom.add(customSchemaName(d.group, d.version, d.kind));
  const paths: Record<string, Schema> = {};
  const definitions: Record<string, Schema> = {};
  for (const list of byGroupVersion(defs).values()) {
    yield;
    const doc = buildGroupVersionDocument(list) as { paths: Record<string, Schema>; components: { schemas: Record<string, Schema> } };
    for (const [p, item] of Object.entries(doc.paths)) paths[p] = toV2PathItem(item);
    for (const [name, s] of Object.entries(doc.components.schemas)) {
      if (definitions[name]) continue;
      definitions[name] = toV2Schema(custom.has(name) ? toV2CustomKindSchema(s) : s);
    }
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: OPENAPI_INFO_VERSION },
    paths: sortedKeys(paths),
    definitions: sortedKeys(definitions),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    security: [{ BearerToken: [] }],
  };
}

/**
 * `JSON.stringify(doc)` of a document as steps, the same text: the members of `paths` and
 * `definitions` a few at a time (every other member at once).
 */
function* stringifySteps(doc: Schema): Steps<string> {
  const out: string[] = [];
  for (const [k, v] of Object.entries(doc)) {
    if (v === undefined) continue;
    if ((k !== 'paths' && k !== 'definitions') || v === null || typeof v !== 'object') {
      out.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
      continue;
    }
    const members: string[] = [];
    for (const [name, m] of Object.entries(v as Record<string, unknown>)) {
      if (m === undefined) continue;
      members.push(`${JSON.stringify(name)}:${JSON.stringify(m)}`);
      if (members.length % 16 === 0) yield;
    }
    out.push(`${JSON.stringify(k)}:{${members.join(',')}}`);
  }
  return `{${out.join(',')}}`;
}

function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}

function newSwaggerDocument(defs: readonly ResourceDefinition[], now: Date): SwaggerDocument {
  return swaggerDocumentOf(buildSwaggerDocument(defs), now);
}

/** A SwaggerDocument of a document value. */
function swaggerDocumentOf(value: Schema, now: Date): SwaggerDocument {
  return swaggerDocumentOfJSON(Buffer.from(JSON.stringify(value)), now);
}

/** A SwaggerDocument of a document's JSON bytes. */
function swaggerDocumentOfJSON(json: Buffer, now: Date): SwaggerDocument {
  let pb: Buffer | undefined;
  let pbBuild: Promise<Buffer> | undefined;
  const gz: { json?: Buffer; protobuf?: Buffer } = {};
  const gzBuild: { json?: Promise<Buffer>; protobuf?: Promise<Buffer> } = {};
  // from the JSON again rather than a kept object graph: most clients never ask for it
  const value = (): Schema => JSON.parse(json.toString('utf8')) as Schema;
  const d: SwaggerDocument = {
    json,
    etag: sha512Hex(json),
    lastModified: now,
    protobuf: () => (pb ??= encodeOpenAPIv2(value())),
    gzip: (form) => (gz[form] ??= gzipSync(form === 'json' ? json : d.protobuf())),
    protobufAsync: () => (pb ? Promise.resolve(pb) : (pbBuild ??= runSliced(encodeOpenAPIv2Steps(value())).then((b) => (pb ??= b)))),
    gzipAsync: (form) => {
      const done = gz[form];
      if (done) return Promise.resolve(done);
      return (gzBuild[form] ??= (form === 'json' ? Promise.resolve(json) : d.protobufAsync()).then(
        (raw) => new Promise<Buffer>((resolve, reject) => gzip(raw, (err, out) => (err ? reject(err) : resolve((gz[form] ??= out))))),
      ));
    },
  };
  return d;
}

const byIdentity = new WeakMap<readonly ResourceDefinition[], SwaggerDocument>();
let last: { fingerprint: string; doc: SwaggerDocument } | undefined;

/**
 * The v2 document of a definition set, built on first use: cached by array identity
 * and, for a new array with the same definitions, by content (the last set is kept).
 * @param now the build time recorded as `lastModified` when a document is built
 */
export function swaggerDocument(defs: readonly ResourceDefinition[], now: Date = new Date()): SwaggerDocument {
  const hit = byIdentity.get(defs);
  if (hit) return hit;
  const fp = fingerprint(defs);
  let doc = last?.fingerprint === fp ? last.doc : undefined;
  if (!doc) {
    doc = newSwaggerDocument(defs, now);
    last = { fingerprint: fp, doc };
  }
  byIdentity.set(defs, doc);
  return doc;
}

/** Builds in progress, by definition array and (the last one) by content. */
const building = new WeakMap<readonly ResourceDefinition[], Promise<SwaggerDocument>>();
let lastBuilding: { fingerprint: string; doc: Promise<SwaggerDocument> } | undefined;

/**
 * {@link swaggerDocument} built in slices that yield to the event loop, so requests keep
 * being served while the first one waits for the document; concurrent callers share one
 * build, and the result is cached as {@link swaggerDocument}'s (the same bytes and ETag).
 * @param now the build time recorded as `lastModified` when a document is built
 */
export function swaggerDocumentAsync(defs: readonly ResourceDefinition[], now: Date = new Date()): Promise<SwaggerDocument> {
  const hit = byIdentity.get(defs);
  if (hit) return Promise.resolve(hit);
  const pending = building.get(defs);
  if (pending) return pending;
  const fp = fingerprint(defs);
  if (last?.fingerprint === fp) {
    byIdentity.set(defs, last.doc);
    return Promise.resolve(last.doc);
  }
  if (lastBuilding?.fingerprint === fp) return lastBuilding.doc;
  const doc = (async () => {
    const value = await runSliced(swaggerDocumentSteps(defs));
    const json = Buffer.from(await runSliced(stringifySteps(value)));
    const d = swaggerDocumentOfJSON(json, now);
    if (last?.fingerprint !== fp) last = { fingerprint: fp, doc: d };
    byIdentity.set(defs, last.doc);
    return last.doc;
  })();
  building.set(defs, doc);
  lastBuilding = { fingerprint: fp, doc };
  const done = (): void => {
    building.delete(defs);
    if (lastBuilding?.doc === doc) lastBuilding = undefined;
  };
  doc.then(done, done);
  return doc;
}
