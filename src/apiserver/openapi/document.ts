/**
 * The OpenAPI v3 documents the API server publishes under /openapi/v3: one OpenAPI 3.0
 * document per group-version (`api/v1`, `apis/apps/v1` …) with the paths of its
 * resources and the schemas they reference, and the index
 * `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=<SHA-512>"}}}`.
 * Documents are computed once per definition set and kept serialized; the API server
 * builds them in slices ({@link openAPIDocumentsAsync}).
 *
 * @see https://github.com/kubernetes/enhancements/tree/master/keps/sig-api-machinery/2896-openapi-v3
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/handler3/handler.go
 */
import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '../../api/resource.js';
import { groupVersionPath } from './names.js';
import { resourcePaths, operationGroupVersion, operationTag } from './paths.js';
import { builtinListSchemaName, builtinSchemaName, builtinSchemas, closureSteps, customKindSchema, listSchema, refsOf, type Schema } from './schemas.js';
import { customSchemaName } from './names.js';
import { customResourceSchema } from './custom.js';
import { DefinitionsCache } from './cache.js';
import { jsonSteps, runNow, type Steps } from '../../util/sliced.js';

/** The upstream version whose API the documents describe (`info.version`). */
export const OPENAPI_INFO_VERSION = 'v1.32.0';

/** One serialized group-version document. */
export interface GroupVersionDocument {
  /** `api/v1`, `apis/apps/v1` */
  path: string;
  /** the document as JSON bytes */
  body: Buffer;
  /** SHA-512 of `body`, upper-case hex (the `hash` query parameter and the ETag) */
  hash: string;
}

/** All documents of one definition set, plus the index. */
export interface OpenAPIDocuments {
  /** `api/v1` → document */
  groupVersions: Map<string, GroupVersionDocument>;
  /** the /openapi/v3 index as JSON bytes */
  index: Buffer;
  /** SHA-512 of `index`, upper-case hex */
  indexHash: string;
}

/** SHA-512 of the bytes as upper-case hex, as kube-openapi computes document ETags. */
export function sha512Hex(data: Buffer | string): string {
  return createHash('sha512').update(data).digest('hex').toUpperCase();
}

/**
 * Builds the OpenAPI 3.0 document of one group-version from its resource definitions
 * (all of the same group and version): `paths` of every resource and the transitively
 * closed `components.schemas` those paths reference.
 */
export function buildGroupVersionDocument(defs: readonly ResourceDefinition[]): Schema {
  return runNow(groupVersionDocumentSteps(defs));
}

/** {@link buildGroupVersionDocument} as steps: one resource per step, one path's references per step, then the schemas. */
export function* groupVersionDocumentSteps(defs: readonly ResourceDefinition[]): Steps<Schema> {
  if (defs.length === 0) throw new Error('buildGroupVersionDocument: no definitions');
  const { group, version } = defs[0]!;
  const set = builtinSchemas();
  const extra: Record<string, Schema> = {};
  const paths: Record<string, Schema> = {};
  const sorted = [...defs].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  for (const def of sorted) {
    yield;
    if (def.group !== group || def.version !== version) throw new Error(`buildGroupVersionDocument: ${def.resource} is not in ${group}/${version}`);
    let kind = builtinSchemaName(def, set);
    const builtin = kind !== undefined;
    if (!kind) {
      kind = customSchemaName(def.group, def.version, def.kind);
      extra[kind] = customResourceSchema(def)?.schema ?? customKindSchema(def);
    }
    let list = builtin ? builtinListSchemaName(def, set) : undefined;
    if (!list) {
      list = customSchemaName(def.group, def.version, def.listKind);
      extra[list] = listSchema(def, kind);
    }
    Object.assign(paths, resourcePaths(def, { kind, list, builtin }));
  }
  const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const ordered: Record<string, Schema> = {
    [`${prefix}/`]: {
      get: {
        description: 'get available resources',
        operationId: `get${operationGroupVersion(group, version)}APIResources`,
        responses: {
          '200': {
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList' } },
              'application/yaml': { schema: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList' } },
            },
            description: 'OK',
          },
          '401': { description: 'Unauthorized' },
        },
        tags: [operationTag(group, version)],
      },
    },
  };
  for (const k of Object.keys(paths).sort()) ordered[k] = paths[k]!;
  const refs = new Set<string>();
  for (const item of Object.values(ordered)) {
    yield;
    refsOf(item, refs);
  }
  const schemas = yield* closureSteps(refs, set.schemas, extra);
  return {
    components: {
      schemas,
      securitySchemes: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    },
    info: { title: 'Kubernetes', version: OPENAPI_INFO_VERSION },
    openapi: '3.0.0',
    paths: ordered,
    security: [{ BearerToken: [] }],
  };
}

/** Groups definitions by `groupVersionPath` (sorted). */
export function byGroupVersion(defs: readonly ResourceDefinition[]): Map<string, ResourceDefinition[]> {
  const m = new Map<string, ResourceDefinition[]>();
  for (const d of defs) {
    const p = groupVersionPath(d.group, d.version);
    let l = m.get(p);
    if (!l) m.set(p, (l = []));
    l.push(d);
  }
  return new Map([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The index document for already-built group-version documents. */
export function indexOf(groupVersions: Map<string, GroupVersionDocument>): Buffer {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [p, d] of groupVersions) paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${d.hash}` };
  return Buffer.from(JSON.stringify({ paths }));
}

/**
 * Builds every group-version document of `defs` and the index that lists them with
 * their hashes. Prefer {@link openAPIDocuments}, which caches the result.
 */
export function buildOpenAPIDocuments(defs: readonly ResourceDefinition[]): OpenAPIDocuments {
  return runNow(openAPIDocumentsSteps(defs));
}

/** {@link buildOpenAPIDocuments} as steps: each group-version's build, its JSON text and its hash. */
function* openAPIDocumentsSteps(defs: readonly ResourceDefinition[]): Steps<OpenAPIDocuments> {
  const groupVersions = new Map<string, GroupVersionDocument>();
  for (const [path, list] of byGroupVersion(defs)) {
    const doc = yield* groupVersionDocumentSteps(list);
    // paths → path item → operation, and components → schemas → schema, written one by one
    const body = yield* jsonSteps(doc, 3);
    groupVersions.set(path, { path, body, hash: sha512Hex(body) });
  }
  const index = indexOf(groupVersions);
  return { groupVersions, index, indexHash: sha512Hex(index) };
}

/**
 * The /openapi/v3 index for a definition set, as a JSON value:
 * `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=<HASH>"}, …}}`
 * where HASH is the SHA-512 (upper-case hex) of that group-version document.
 */
export function buildOpenAPIIndex(defs: readonly ResourceDefinition[]): { paths: Record<string, { serverRelativeURL: string }> } {
  return JSON.parse(openAPIDocuments(defs).index.toString('utf8'));
}

/** What of a definition set shows in the documents (a cache key; equal sets give equal strings). */
export function fingerprint(defs: readonly ResourceDefinition[]): string {
  return defs
    .map((d) =>
      [
        d.group,
        d.version,
        d.resource,
        d.kind,
        d.listKind,
        d.namespaced ? 'n' : 'c',
        (d.verbs ?? []).join(','),
        d.status ? 's' : '',
        d.schemaRef ?? '',
        customResourceSchema(d)?.hash ?? '',
      ].join('/'),
    )
    .sort()
    .join('|');
}

const cache = new DefinitionsCache(openAPIDocumentsSteps, fingerprint, 4);

/**
 * The documents of a definition set, computed once: cached by array identity and, for
 * a new array with the same definitions, by content (the last few sets are kept).
 */
export function openAPIDocuments(defs: readonly ResourceDefinition[]): OpenAPIDocuments {
  return cache.get(defs);
}

/**
 * {@link openAPIDocuments} built in slices that yield to the event loop (the first build of
 * the built-in definitions takes a few hundred ms), so requests keep being served while
 * the first one waits; concurrent callers share one build; the same documents.
 */
export function openAPIDocumentsAsync(defs: readonly ResourceDefinition[]): Promise<OpenAPIDocuments> {
  return cache.getAsync(defs);
}
