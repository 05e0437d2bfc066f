/**
 * HTTP answers for /openapi/v3 (the index) and /openapi/v3/<group-version> (a
 * document), as kube-openapi's handler3 serves them: JSON, ETag = the document hash,
 * `Cache-Control: public, immutable` when the URL carries the current hash, a 301 to
 * the current URL for a stale hash, `no-cache, private` for the index.
 *
 * /openapi/v2 is the one Swagger 2.0 document (./v2/handler.ts): kubectl uses v3 when
 * the index lists the kind's group-version and falls back to v2 otherwise (client-side
 * validation of kinds the server does not serve, `explain --output=plaintext-openapiv2`).
 *
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/handler3/handler.go
 */
import type { ResourceDefinition } from '../../api/resource.js';
import { failureStatus } from '../../apimachinery/errors.js';
import { type OpenAPIDocuments, openAPIDocuments, openAPIDocumentsAsync } from './document.js';
import { type ExtensionOpenAPI, withExtensionsV3 } from './extensions.js';
import { handleOpenAPIV2, handleOpenAPIV2Async, type RequestHeaders } from './v2/handler.js';

/** What the API server writes back. */
export interface OpenAPIResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const V2 = '/openapi/v2';
const V3 = '/openapi/v3';
const ONE_YEAR_MS = 365 * 24 * 3600 * 1000;

function notFound(): OpenAPIResponse {
  const status = failureStatus(404, 'NotFound', 'the server could not find the requested resource', {});
  return { status: 404, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' }, body: Buffer.from(JSON.stringify(status)) };
}

/**
 * Answers a GET under /openapi.
 *
 * @param path the URL path (`/openapi/v3`, `/openapi/v3/apis/apps/v1`; a trailing slash is ignored)
 * @param query the URL query (`hash` is honoured; others such as `timeout` are ignored)
 * @param defs the served resource definitions (documents are cached per set)
 * @param now clock for the `Expires` header of hashed URLs
 * @param headers the request headers (/openapi/v2 negotiates on Accept, Accept-Encoding and If-None-Match)
 * @param ext the extension API servers' documents (the aggregation layer), joined to the own ones
 * @returns status, headers (Content-Type, ETag, Cache-Control, and Location/Expires where due) and body;
 *   404 with a metav1.Status for unknown paths and group-versions
 */
export function handleOpenAPI(
  path: string,
  query: URLSearchParams,
  defs: readonly ResourceDefinition[],
  now: Date = new Date(),
  headers: RequestHeaders = {},
  ext?: ExtensionOpenAPI,
): OpenAPIResponse {
  const p = trimmed(path);
  if (p === V2) return handleOpenAPIV2(headers, defs, now, ext);
  if (!isV3(p)) return notFound();
  return handleOpenAPIV3(p, query, withExtensionsV3(openAPIDocuments(defs), ext), now);
}

/**
 * {@link handleOpenAPI} for the API server (the same parameters and answers): the documents
 * are built without holding the event loop (./document.ts openAPIDocumentsAsync,
 * ./v2/handler.ts handleOpenAPIV2Async).
 */
export async function handleOpenAPIAsync(...args: Parameters<typeof handleOpenAPI>): Promise<OpenAPIResponse> {
  const [path, query, defs, now = new Date(), headers = {}, ext] = args;
  const p = trimmed(path);
  if (p === V2) return handleOpenAPIV2Async(headers, defs, now, ext);
  if (!isV3(p)) return notFound();
  return handleOpenAPIV3(p, query, withExtensionsV3(await openAPIDocumentsAsync(defs), ext), now);
}

/** Whether `p` (no trailing slash) is /openapi/v3 or below it. */
function isV3(p: string): boolean {
  return p === V3 || p.startsWith(V3 + '/');
}

/** The path without a trailing slash (`/openapi/v3/` is `/openapi/v3`). */
function trimmed(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Answers `p` (/openapi/v3 or below it, no trailing slash) from `docs`. */
function handleOpenAPIV3(p: string, query: URLSearchParams, docs: OpenAPIDocuments, now: Date): OpenAPIResponse {
  if (p === V3) {
    return {
      status: 200,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ETag: `"${docs.indexHash}"` },
      body: docs.index,
    };
  }
  const gv = p.slice(V3.length + 1);
  const doc = docs.groupVersions.get(gv);
  if (!doc) return notFound();
  const etag = `"${doc.hash}"`;
  const hash = query.get('hash');
  if (hash !== null && hash !== '') {
    if (hash !== doc.hash) {
      const location = `${V3}/${gv}?hash=${doc.hash}`;
      return {
        status: 301,
        headers: { 'Content-Type': 'text/html; charset=utf-8', Location: location },
        body: Buffer.from(`<a href="${location}">Moved Permanently</a>.\n`),
      };
    }
    return {
      status: 200,
      headers: {
        'Content-Type': 'application/json',
        'Cache-Control': 'public, immutable',
        Expires: new Date(now.getTime() + ONE_YEAR_MS).toUTCString(),
        ETag: etag,
        Vary: 'Accept',
      },
      body: doc.body,
    };
  }
  return { status: 200, headers: { 'Content-Type': 'application/json', ETag: etag }, body: doc.body };
}
