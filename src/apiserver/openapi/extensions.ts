/**
 * The OpenAPI of extension API servers (APIServices with a Service) joined to the API
 * server's own, as kube-aggregator's OpenAPI controllers do: each backend's v3 document of
 * its group-version is listed in the /openapi/v3 index (hash of its bytes) and served as
 * is; its v2 paths and definitions are added to the /openapi/v2 document (the API server's
 * own win a name conflict). So `kubectl explain` and client-side validation know the
 * extension kinds.
 *
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/openapiv3/aggregator/aggregator.go
 * @see https://github.com/kubernetes/kube-aggregator/blob/v0.32.0/pkg/controllers/openapi/aggregator/aggregator.go
 */
import { indexOf, type OpenAPIDocuments, sha512Hex } from './document.js';
import type { Schema } from './schemas.js';

/** What the aggregation layer downloaded from its backends. */
export interface ExtensionOpenAPI {
  /** changes whenever a document below changes */
  readonly revision: number;
  /** v3 group-version documents (`apis/<group>/<version>` → JSON bytes) */
  v3(): ReadonlyMap<string, Buffer>;
  /** the backends' Swagger 2.0 documents */
  v2(): readonly Schema[];
}

const v3Cache = new WeakMap<OpenAPIDocuments, { revision: number; ext: ExtensionOpenAPI; docs: OpenAPIDocuments }>();

/** The v3 documents with the extension servers' group-versions added (cached per revision). */
export function withExtensionsV3(own: OpenAPIDocuments, ext: ExtensionOpenAPI | undefined): OpenAPIDocuments {
  if (!ext || ext.v3().size === 0) return own;
  const hit = v3Cache.get(own);
  if (hit && hit.ext === ext && hit.revision === ext.revision) return hit.docs;
  const groupVersions = new Map(own.groupVersions);
  for (const [path, body] of ext.v3()) if (!groupVersions.has(path)) groupVersions.set(path, { path, body, hash: sha512Hex(body) });
  const sorted = new Map([...groupVersions.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const index = indexOf(sorted);
  const docs = { groupVersions: sorted, index, indexHash: sha512Hex(index) };
  v3Cache.set(own, { revision: ext.revision, ext, docs });
  return docs;
}

/**
 * The v2 document (as a JSON value) with the extension servers' paths and definitions
 * added; `base` is not modified.
 */
export function mergeSwagger(base: Schema, specs: readonly Schema[]): Schema {
  const paths = { ...((base.paths as Record<string, Schema>) ?? {}) };
  const definitions = { ...((base.definitions as Record<string, Schema>) ?? {}) };
  for (const s of specs) {
    for (const [k, v] of Object.entries((s.paths as Record<string, Schema>) ?? {})) if (!(k in paths)) paths[k] = v;
    for (const [k, v] of Object.entries((s.definitions as Record<string, Schema>) ?? {})) if (!(k in definitions)) definitions[k] = v;
  }
  const sorted = <T>(o: Record<string, T>): Record<string, T> =>
    Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]!]),
    );
  return { ...base, paths: sorted(paths), definitions: sorted(definitions) };
}
