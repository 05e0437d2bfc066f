/**
 * Parses a request path into upstream's RequestInfo: whether it is a resource
 * request, the API group/version, namespace, resource, name, subresource and verb.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/request/requestinfo.go
 */

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
  let parts: string[];
  try {
    parts = path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return info;
  }
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info;
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (parts.length < 1) return info;
  info.isResourceRequest = true;

  let isWatchPath = false;
  if (parts[0] === 'watch') {
    isWatchPath = true;
    parts = parts.slice(1);
    if (parts.length < 1) {
      info.isResourceRequest = false;
      return info;
    }
  }
  const m = method.toUpperCase();
  switch (m) {
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
      info.verb = '';
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      // /namespaces/{name}/{subresource} of the namespace itself
      if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;
  // parts is now resource[/name[/subresource[/...]]]
  if (parts.length >= 3) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;
  info.parts = parts.slice(3);

  if (info.name === '' && info.verb === 'get') {
    info.verb = 'list';
  }
  const watchParam = query.get('watch');
  if (info.verb === 'list' && (watchParam === 'true' || watchParam === '1')) info.verb = 'watch';
  if (isWatchPath) info.verb = info.verb === 'list' || info.verb === 'get' ? 'watch' : info.verb;
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  // a Namespace object itself is cluster-scoped: /api/v1/namespaces/x has name x, no namespace
  if (info.resource === 'namespaces') info.namespace = '';
  return info;
}
