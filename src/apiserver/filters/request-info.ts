/**
 * The request-info filter (upstream WithRequestInfo): parses the URL once into a
 * RequestInfo (resource request or not, group/version/resource, namespace, name,
 * subresource, verb) that the later filters and the handlers read from the request.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/requestinfo.go
 */
import { parseRequestInfo, type RequestInfo } from '../http/request-info.js';
import type { ApiRequest } from '../http/types.js';
import type { Handler } from './types.js';

/** Splits `req.url` into the path and the parsed query. */
export function splitURL(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf('?');
  return { path: q < 0 ? url : url.slice(0, q), query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)) };
}

/**
 * The request's RequestInfo: the one {@link withRequestInfo} attached, or parsed now for
 * a request that did not come through the chain.
 */
export function requestInfoOf(req: ApiRequest): RequestInfo {
  let info = req.requestInfo;
  if (info === undefined) {
    const { path, query } = splitURL(req.url);
    info = req.requestInfo = parseRequestInfo(req.method, path, query);
  }
  return info;
}

/** Attaches the RequestInfo to the request before calling `next`. */
export function withRequestInfo(next: Handler): Handler {
  return (req, res) => {
    requestInfoOf(req);
    return next(req, res);
  };
}
