/**
 * Parses a request path into upstream's RequestInfo: whether it is a resource
 * request, the API group/version, namespace, resource, name, subresource and verb.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/request/requestinfo.go
 */
import { queryBool } from '../../apimachinery/query-params.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** full path without query */
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection (resource requests); lowercased HTTP method otherwise */
  verb: string;
  /** "api" or "apis" */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** path segments after the subresource (e.g. proxy paths) */
  parts: string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

/**
 * @param method HTTP method
 * @param path URL path without the query string (already percent-decoded per segment here)
 * @param query parsed query
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  const all = splitPath(path);
  if (all === undefined) return info;
  // `all[i..]` is what is left to interpret
  let i = 0;
  const left = (): number => all.length - i;
  if (left() < 1 || (all[0] !== 'api' && all[0] !== 'apis')) return info;
  info.apiPrefix = all[i++]!;
  if (info.apiPrefix === 'apis') {
    if (left() < 1) return info;
    info.apiGroup = all[i++]!;
  }
  if (left() < 1) return info;
  info.apiVersion = all[i++]!;
  if (left() < 1) return info;
  info.isResourceRequest = true;

  let isWatchPath = false;
  if (all[i] === 'watch') {
    isWatchPath = true;
    i++;
    if (left() < 1) {
      info.isResourceRequest = false;
      return info;
    }
  }
  switch (method) {
    case 'POST':
      info.verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      info.verb = 'get';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = 'delete';
      break;
    default:
      info.verb = verbOf(method.toUpperCase());
  }

  if (all[i] === 'namespaces') {
    if (left() > 1) {
      info.namespace = all[i + 1]!;
      // /namespaces/{name}/{subresource} of the namespace itself
      if (left() > 2 && !namespaceSubresources.has(all[i + 2]!)) i += 2;
    }
  }
  // what is left is resource[/name[/subresource[/...]]]
  const n = left();
  if (n >= 3) info.subresource = all[i + 2]!;
  if (n >= 2) info.name = all[i + 1]!;
  if (n >= 1) info.resource = all[i]!;
  info.parts = n > 3 ? all.slice(i + 3) : [];

  if (info.name === '' && info.verb === 'get') {
    info.verb = 'list';
  }
  if (info.verb === 'list') {
    // `watch` decodes as upstream's ListOptions.Watch: anything but 0/false is true
    if (queryBool(query, 'watch')) info.verb = 'watch';
  }
  if (isWatchPath) info.verb = info.verb === 'list' || info.verb === 'get' ? 'watch' : info.verb;
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  // a Namespace object itself is cluster-scoped: /api/v1/namespaces/x has name x, no namespace
  if (info.resource === 'namespaces') info.namespace = '';
  return info;
}

/** The verb for a method in any letter case (the fast path above takes the usual upper case). */
function verbOf(m: string): string {
  switch (m) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/**
 * The non-empty segments of `path`, each percent-decoded; undefined when a segment
 * does not decode (the request is then not a resource request).
 */
function splitPath(path: string): string[] | undefined {
  const out: string[] = [];
  let start = 0;
  const n = path.length;
  while (start <= n) {
    let end = path.indexOf('/', start);
    if (end < 0) end = n;
    if (end > start) {
      const seg = path.slice(start, end);
      if (seg.indexOf('%') < 0) out.push(seg);
      else {
        try {
          out.push(decodeURIComponent(seg));
        } catch {
          return undefined;
        }
      }
    }
    start = end + 1;
  }
  return out;
}
