/**
 * Content negotiation for responses (Accept) and requests (Content-Type), as
 * upstream's apiserver/pkg/endpoints/handlers/negotiation: JSON replies, Table and
 * PartialObjectMetadata transforms selected by media type parameters
 * (`application/json;as=Table;v=v1;g=meta.k8s.io`), protobuf accepted as a request
 * body format but answered in JSON (kubectl accepts JSON replies to its
 * protobuf-first Accept headers).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/handlers/negotiation/negotiate.go
 */
import { newNotAcceptable } from '../../apimachinery/errors.js';

export interface MediaType {
  type: string; // e.g. application/json
  params: Record<string, string>;
}

/** What the response body should be. */
export type Transform = 'none' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export interface Negotiated {
  /** JSON in all cases; YAML when asked for application/yaml */
  format: 'json' | 'yaml';
  transform: Transform;
}

export function parseMediaTypes(header: string | undefined): MediaType[] {
  if (!header) return [];
  const out: MediaType[] = [];
  for (const part of header.split(',')) {
    const [t, ...ps] = part.split(';');
    const type = t!.trim().toLowerCase();
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of ps) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      params[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
    }
    out.push({ type, params });
  }
  return out;
}

const jsonTypes = new Set(['application/json', '*/*', 'application/*']);

/**
 * Picks the response format for an object/list endpoint. Throws 406 NotAcceptable when
 * nothing acceptable is offered.
 * @param allowTransform whether Table/PartialObjectMetadata transforms apply (resource GET/LIST/WATCH)
 */
export function negotiateOutput(accept: string | undefined, allowTransform: boolean): Negotiated {
  // the usual headers, without parsing
  if (accept === undefined || accept === 'application/json' || accept === '*/*') return { format: 'json', transform: 'none' };
  const types = parseMediaTypes(accept);
  if (types.length === 0) return { format: 'json', transform: 'none' };
  for (const mt of types) {
    const as = mt.params['as'];
    if (as) {
      if (!allowTransform) continue;
      const g = mt.params['g'];
      const v = mt.params['v'];
      if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
      if (mt.type !== 'application/json' && mt.type !== 'application/yaml') continue;
      if (as === 'Table' || as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
        return { format: mt.type === 'application/yaml' ? 'yaml' : 'json', transform: as };
      }
      continue;
    }
    if (jsonTypes.has(mt.type)) return { format: 'json', transform: 'none' };
    if (mt.type === 'application/yaml') return { format: 'yaml', transform: 'none' };
    // protobuf and cbor are not produced; fall through to the next offer
  }
  // Clients offering only protobuf get JSON too: upstream would answer protobuf,
  // and every Kubernetes client library decodes by the response Content-Type.
  if (types.some((t) => t.type === 'application/vnd.kubernetes.protobuf')) return { format: 'json', transform: 'none' };
  throw newNotAcceptable(`only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
}

/** Request body formats the server decodes. */
export type BodyFormat = 'json' | 'yaml' | 'protobuf' | 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch';

export function bodyFormat(contentType: string | undefined): BodyFormat | undefined {
  if (contentType === 'application/json') return 'json'; // the usual header, without parsing
  const mt = parseMediaTypes(contentType)[0];
  if (!mt) return undefined;
  switch (mt.type) {
    case 'application/json':
      return 'json';
    case 'application/yaml':
    case 'application/x-yaml':
    case 'text/yaml':
      return 'yaml';
    case 'application/vnd.kubernetes.protobuf':
      return 'protobuf';
    case 'application/json-patch+json':
      return 'json-patch';
    case 'application/merge-patch+json':
      return 'merge-patch';
    case 'application/strategic-merge-patch+json':
      return 'strategic-merge-patch';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+cbor':
      return 'apply-patch';
    default:
      return undefined;
  }
}

/** Go's strconv.ParseBool: the spellings it accepts, true/false; anything else is undefined (an error there). */
function parseGoBool(v: string): boolean | undefined {
  switch (v) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      return undefined;
  }
}

/**
 * Whether JSON replies are indented, as upstream's negotiation decides: the `pretty`
 * query parameter when it is given (a value strconv.ParseBool rejects means false),
 * else a User-Agent of a human's tool (starting with `curl`, `Wget` or `Mozilla/5.0`).
 * @param rawQuery the URL's query string (without `?`), or undefined
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/endpoints/handlers/negotiation/negotiate.go (isPrettyPrint)
 */
export function isPrettyPrint(rawQuery: string | undefined, userAgent: string | undefined): boolean {
  if (rawQuery !== undefined && rawQuery.includes('pretty')) {
    const pp = new URLSearchParams(rawQuery).get('pretty');
    if (pp !== null && pp !== '') return parseGoBool(pp) ?? false;
  }
  if (userAgent === undefined) return false;
  return userAgent.startsWith('curl') || userAgent.startsWith('Wget') || userAgent.startsWith('Mozilla/5.0');
}
