/**
 * The Swagger 2.0 document kube-apiserver serves at /openapi/v2: one document for the
 * whole server — every served resource's paths and every definition they reference —
 * made from the same group-version documents as /openapi/v3 (../document.ts),
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
import { byGroupVersion, fingerprint, groupVersionDocumentSteps, OPENAPI_INFO_VERSION, sha512Hex } from '../document.js';
import { DefinitionsCache } from '../cache.js';
import { customSchemaName } from '../names.js';
import { builtinSchemaName, builtinSchemas, type Schema } from '../schemas.js';
import { toV2CustomKindSchema, toV2PathItem, toV2Schema } from './convert.js';
import { encodeOpenAPIv2, encodeOpenAPIv2Steps } from './protobuf.js';
import { type ExtensionOpenAPI, mergeSwagger } from '../extensions.js';
import { jsonSteps, runNow, runSliced, type Steps } from '../../../util/sliced.js';

/** The merged document of a SwaggerDocument, for the extension documents' revision it was made of. */
interface Merged {
  ext: ExtensionOpenAPI;
  revision: number;
  doc: Promise<SwaggerDocument>;
  /** `doc` once made */
  done?: SwaggerDocument;
}

const merged = new WeakMap<SwaggerDocument, Merged>();

/** The merged document of `own` made (or being made) for `ext`'s current revision. */
function mergedOf(own: SwaggerDocument, ext: ExtensionOpenAPI): Merged | undefined {
  const m = merged.get(own);
  return m && m.ext === ext && m.revision === ext.revision ? m : undefined;
}

/** The merge as steps: `own` parsed again, the extension servers' paths and definitions added, the JSON text. */
function* mergedSteps(own: SwaggerDocument, ext: ExtensionOpenAPI, now: Date): Steps<SwaggerDocument> {
  const base = JSON.parse(own.json.toString('utf8')) as Schema;
  yield;
  const value = mergeSwagger(base, ext.v2());
  yield;
  return swaggerDocumentOfJSON(yield* jsonSteps(value), now);
}

/** `own` with the extension servers' v2 paths and definitions (../extensions.ts), cached per revision. */
export function withExtensionsV2(own: SwaggerDocument, ext: ExtensionOpenAPI | undefined, now: Date): SwaggerDocument {
  if (!ext || ext.v2().length === 0) return own;
  const hit = mergedOf(own, ext)?.done;
  if (hit) return hit;
  const doc = runNow(mergedSteps(own, ext, now));
  merged.set(own, { ext, revision: ext.revision, doc: Promise.resolve(doc), done: doc });
  return doc;
}

/**
 * {@link withExtensionsV2} merged in slices that yield to the event loop; concurrent callers
 * share one merge; the same document.
 */
export function withExtensionsV2Async(own: SwaggerDocument, ext: ExtensionOpenAPI | undefined, now: Date): Promise<SwaggerDocument> {
  if (!ext || ext.v2().length === 0) return Promise.resolve(own);
  const hit = mergedOf(own, ext);
  if (hit) return hit.doc;
  const m: Merged = { ext, revision: ext.revision, doc: runSliced(mergedSteps(own, ext, now)) };
  m.doc.then(
    (d) => (m.done = d),
    () => merged.get(own) === m && merged.delete(own),
  );
  merged.set(own, m);
  return m.doc;
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

/** {@link buildSwaggerDocument} as steps: each group-version's build (./document.ts steps), its paths, its definitions. */
function* swaggerDocumentSteps(defs: readonly ResourceDefinition[]): Steps<Schema> {
  const set = builtinSchemas();
  const custom = new Set<string>();
  for (const d of defs) if (!builtinSchemaName(d, set)) custom.add(customSchemaName(d.group, d.version, d.kind));
  const paths: Record<string, Schema> = {};
  const definitions: Record<string, Schema> = {};
  for (const list of byGroupVersion(defs).values()) {
    const doc = (yield* groupVersionDocumentSteps(list)) as { paths: Record<string, Schema>; components: { schemas: Record<string, Schema> } };
    for (const [p, item] of Object.entries(doc.paths)) {
      yield;
      paths[p] = toV2PathItem(item);
    }
    for (const [name, s] of Object.entries(doc.components.schemas)) {
      if (definitions[name]) continue;
      yield;
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

function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}

/** The SwaggerDocument of a definition set as steps: the value, its JSON text, the document. */
function* swaggerDocumentOfSteps(defs: readonly ResourceDefinition[], now: Date): Steps<SwaggerDocument> {
  const value = yield* swaggerDocumentSteps(defs);
  return swaggerDocumentOfJSON(yield* jsonSteps(value), now);
}

/** A SwaggerDocument of a document's JSON bytes. */
function swaggerDocumentOfJSON(json: Buffer, now: Date): SwaggerDocument {
  let pb: Buffer | undefined;
  let pbBuild: Promise<Buffer> | undefined;
  const gz: { json?: Buffer; protobuf?: Buffer } = {};
  const gzBuild: { json?: Promise<Buffer>; protobuf?: Promise<Buffer> } = {};
  // from the JSON again rather than a kept object graph: most clients never ask for it
  const value = (): Schema => JSON.parse(json.toString('utf8')) as Schema;
  function* protobufSteps(): Steps<Buffer> {
    const v = value();
    yield;
    return yield* encodeOpenAPIv2Steps(v);
  }
  const d: SwaggerDocument = {
    json,
    etag: sha512Hex(json),
    lastModified: now,
    protobuf: () => (pb ??= encodeOpenAPIv2(value())),
    gzip: (form) => (gz[form] ??= gzipSync(form === 'json' ? json : d.protobuf())),
    protobufAsync: () => (pb ? Promise.resolve(pb) : (pbBuild ??= runSliced(protobufSteps()).then((b) => (pb ??= b)))),
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

/** The document of the last definition set, kept by array and by content. */
const cache = new DefinitionsCache(swaggerDocumentOfSteps, fingerprint, 1);

/**
 * The v2 document of a definition set, built on first use: cached by array identity
 * and, for a new array with the same definitions, by content (the last set is kept).
 * @param now the build time recorded as `lastModified` when a document is built
 */
export function swaggerDocument(defs: readonly ResourceDefinition[], now: Date = new Date()): SwaggerDocument {
  return cache.get(defs, now);
}

/**
 * {@link swaggerDocument} built in slices that yield to the event loop, so requests keep
 * being served while the first one waits for the document; concurrent callers share one
 * build, and the result is cached as {@link swaggerDocument}'s (the same bytes and ETag).
 * @param now the build time recorded as `lastModified` when a document is built
 */
export function swaggerDocumentAsync(defs: readonly ResourceDefinition[], now: Date = new Date()): Promise<SwaggerDocument> {
  return cache.getAsync(defs, now);
}
