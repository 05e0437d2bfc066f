/**
 * The authorization filter (upstream WithAuthorization): asks the authorizer whether
 * the request's user may perform its verb on its resource (or non-resource path), and
 * answers 403 Forbidden with upstream's message when not.
 *
 * Anonymous requests reach this point only for the public health and version paths
 * (see authentication.ts) and are not checked. WebSocket GETs to exec, attach and
 * portforward are authorized as `create`, as upstream 1.32
 * (AuthorizePodWebsocketUpgradeCreatePermission).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/authorization.go
 */
import type { UserInfo } from '../../api/resource.js';
import { newForbidden, type StatusError } from '../../apimachinery/errors.js';
import type { Authorizer } from '../apiserver.js';
import type { RequestInfo } from '../http/request-info.js';
import { writeError } from '../http/respond.js';
import { isPublicAnonymous } from './authentication.js';
import { requestInfoOf, splitURL } from './request-info.js';
import type { Handler } from './types.js';

const STREAMING_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);

/** Wraps `next` in the authorization check; without an authorizer every request passes. */
export function withAuthorization(next: Handler, authorizer: Authorizer | undefined): Handler {
  if (!authorizer) return next;
  return async (req, res) => {
    const user = req.user;
    if (user && !isPublicAnonymous(user)) {
      const info = requestInfoOf(req);
      const { path, query } = splitURL(req.url);
      const streaming =
        info.resource === 'pods' && STREAMING_SUBRESOURCES.has(info.subresource) && info.verb === 'get' && (req.headers['upgrade'] ?? '').toLowerCase() === 'websocket';
      try {
        const d = await authorizer.authorize({
          user,
          ...info,
          verb: streaming ? 'create' : info.verb,
          path,
          fieldSelector: query.get('fieldSelector') ?? '',
          labelSelector: query.get('labelSelector') ?? '',
        });
        if (!d.allowed) throw forbiddenFor(user, info, d.reason);
      } catch (e) {
        writeError(res, e);
        return;
      }
    }
    return next(req, res);
  };
}

/** 403 with upstream's message: `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`. */
export function forbiddenFor(user: UserInfo, info: RequestInfo, reason?: string): StatusError {
  if (!info.isResourceRequest) {
    const msg = `User "${user.username}" cannot ${info.verb} path "${info.path}"`;
    return newForbidden(undefined, '', reason ? `${msg}: ${reason}` : msg);
  }
  const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  let msg = `User "${user.username}" cannot ${info.verb} resource "${res}" in API group "${info.apiGroup}"`;
  msg += info.namespace ? ` in the namespace "${info.namespace}"` : ' at the cluster scope';
  if (reason) msg += `: ${reason}`;
  return newForbidden({ group: info.apiGroup, resource: info.resource }, info.name, msg);
}
