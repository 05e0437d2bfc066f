/**
 * GET /openapi/v2 as kube-openapi's handler answers it: the media type chosen from
 * `Accept` (JSON, or gnostic protobuf under either of its names; `*\/*` and no Accept
 * mean JSON; nothing acceptable is a bare 406), `ETag` = the quoted SHA-512 of the
 * JSON for every form, `Last-Modified`, a 304 when `If-None-Match` (or, without it,
 * `If-Modified-Since`) shows the client holds the current document, and gzip when the
 * client accepts it.
 *
 * @see https://github.com/kubernetes/kube-openapi/blob/master/pkg/handler/handler.go
 * @see https://pkg.go.dev/net/http#ServeContent (conditional requests)
 */
import type { ResourceDefinition } from '../../../api/resource.js';
import { swaggerDocument, swaggerDocumentAsync, type SwaggerDocument } from './document.js';
import type { ExtensionOpenAPI } from '../extensions.js';
import { withExtensionsV2, withExtensionsV2Async } from './document.js';

/** Request headers by lower-case name. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The protobuf media type kubectl asks for (kube-openapi calls it deprecated but serves it). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** The protobuf media type kube-openapi names in its Content-Type. */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const OFFERS: { type: string; subtype: string; form: 'json' | 'protobuf' }[] = [
  { type: 'application', subtype: 'json', form: 'json' },
  { type: 'application', subtype: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', form: 'protobuf' },
  { type: 'application', subtype: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', form: 'protobuf' },
];

/** gzip only pays from about one packet on (gziphandler's default minimum size). */
const GZIP_MIN_BYTES = 1400;

interface Clause {
  type: string;
  subtype: string;
  q: number;
}

/** Accept clauses best first: by q, then specific types before wildcards (as goautoneg). */
export function parseAccept(header: string): Clause[] {
  const out: Clause[] = [];
  for (const part of header.split(',')) {
    const [mt, ...params] = part.split(';');
    const m = mt!.trim();
    if (!m) continue;
    const slash = m.indexOf('/');
    const type = slash < 0 ? m : m.slice(0, slash);
    const subtype = slash < 0 ? '*' : m.slice(slash + 1);
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((x) => x.trim());
      if (k === 'q' && v !== undefined) {
        const n = Number(v);
        if (!Number.isNaN(n)) q = n;
      }
    }
    out.push({ type, subtype, q });
  }
  const rank = (c: Clause): number => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}

function header(h: RequestHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Whether an If-None-Match list names `etag` (weak comparison, `*` matches any). */
function noneMatchHit(ifNoneMatch: string, etag: string): boolean {
  for (const raw of ifNoneMatch.split(',')) {
    const t = raw.trim();
    if (t === '*') return true;
    const strong = t.startsWith('W/') ? t.slice(2) : t;
    if (strong === etag) return true;
  }
  return false;
}

/** What the API server writes back. */
export interface OpenAPIV2Response {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The form `Accept` asks for (undefined: neither JSON nor protobuf is acceptable). */
function negotiate(headers: RequestHeaders): 'json' | 'protobuf' | undefined {
  const accept = header(headers, 'accept') || '*/*';
  for (const c of parseAccept(accept)) {
    for (const o of OFFERS) {
      if ((c.type === o.type || c.type === '*') && (c.subtype === o.subtype || c.subtype === '*')) return o.form;
    }
  }
  return undefined;
}

const NOT_ACCEPTABLE = (): OpenAPIV2Response => ({ status: 406, headers: { Vary: 'Accept' }, body: Buffer.alloc(0) });

/** Whether the request's conditional headers show the client holds `doc` (a 304). */
function fresh(headers: RequestHeaders, doc: SwaggerDocument): boolean {
  const inm = header(headers, 'if-none-match');
  const ims = header(headers, 'if-modified-since');
  return inm !== undefined ? noneMatchHit(inm, `"${doc.etag}"`) : ims !== undefined && Math.floor(doc.lastModified.getTime() / 1000) * 1000 <= Date.parse(ims);
}

/** Whether the answer in `form` is gzipped for this request. */
function gzipped(headers: RequestHeaders, size: number): boolean {
  return size >= GZIP_MIN_BYTES && /(^|,)\s*gzip\s*(;|,|$)/i.test(header(headers, 'accept-encoding') ?? '');
}

/**
 * Answers GET/HEAD /openapi/v2.
 *
 * @param headers the request headers (Accept, Accept-Encoding, If-None-Match, If-Modified-Since)
 * @param defs the served resource definitions (the document is cached per set)
 * @param now the clock for a document built by this call (its Last-Modified)
 * @returns 200 with the document; 304 without a body; 406 without a body for an Accept
 *   offering neither JSON nor the protobuf form
 */
export function handleOpenAPIV2(headers: RequestHeaders, defs: readonly ResourceDefinition[], now: Date = new Date(), ext?: ExtensionOpenAPI): OpenAPIV2Response {
  const form = negotiate(headers);
  if (!form) return NOT_ACCEPTABLE();
  return respond(headers, withExtensionsV2(swaggerDocument(defs, now), ext, now), form);
}

/**
 * {@link handleOpenAPIV2} for the API server: the document, its merge with the extension
 * servers' documents, its protobuf form and gzip are made without holding the event loop (built in slices, compressed off the loop), so other
 * requests are answered while the first one waits; the same answers, bytes and ETag.
 */
export async function handleOpenAPIV2Async(
  headers: RequestHeaders,
  defs: readonly ResourceDefinition[],
  now: Date = new Date(),
  ext?: ExtensionOpenAPI,
): Promise<OpenAPIV2Response> {
  const form = negotiate(headers);
  if (!form) return NOT_ACCEPTABLE();
  const doc = await withExtensionsV2Async(await swaggerDocumentAsync(defs, now), ext, now);
  if (!fresh(headers, doc)) {
    const body = form === 'json' ? doc.json : await doc.protobufAsync();
    if (gzipped(headers, body.length)) await doc.gzipAsync(form);
  }
  return respond(headers, doc, form);
}

/** The answer with `doc` in `form` (its protobuf and gzip forms made here unless made already). */
function respond(headers: RequestHeaders, doc: SwaggerDocument, form: 'json' | 'protobuf'): OpenAPIV2Response {
  const etag = `"${doc.etag}"`;
  const out: Record<string, string> = {
    'Content-Type': form === 'json' ? 'application/json' : OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
    Etag: etag,
    'Last-Modified': doc.lastModified.toUTCString(),
    Vary: 'Accept, Accept-Encoding',
    'Accept-Ranges': 'bytes',
  };
  if (fresh(headers, doc)) {
    return { status: 304, headers: { Etag: etag, Vary: out.Vary! }, body: Buffer.alloc(0) };
  }
  let body = form === 'json' ? doc.json : doc.protobuf();
  if (gzipped(headers, body.length)) {
    body = doc.gzip(form);
    out['Content-Encoding'] = 'gzip';
  }
  out['Content-Length'] = String(body.length);
  return { status: 200, headers: out, body };
}
