/**
 * The authentication filter (upstream WithAuthentication): sets `req.user`.
 *
 * - A client-certificate user set by the TLS listener (or the user of an in-process
 *   transport) is kept; with token authenticators configured it also gets the
 *   `system:authenticated` group, as upstream's union authenticator adds it.
 * - Otherwise a bearer token must be accepted by one of the token authenticators
 *   (static file, ServiceAccount JWT, bootstrap token); a token none accepts is a 401,
 *   never anonymous.
 * - A request without credentials is `system:anonymous` for the public health and
 *   version endpoints (upstream's system:public-info-viewer) and a 401 elsewhere.
 *
 * Failures are answered by `failed` (upstream wraps its Unauthorized handler in the audit
 * filter, so failed authentications are audited too).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/authentication.go
 */
import type { UserInfo } from '../../api/resource.js';
import { newUnauthorized } from '../../apimachinery/errors.js';
import type { Authentication } from '../authn/filter.js';
import { writeError } from '../http/respond.js';
import type { ApiRequest } from '../http/types.js';
import { requestInfoOf } from './request-info.js';
import type { Handler } from './types.js';

/** The user of requests without credentials on the public paths. */
export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Paths anonymous users may read (upstream system:public-info-viewer). */
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

function isPublic(req: ApiRequest): boolean {
  if (req.method !== 'GET') return false;
  const p = requestInfoOf(req).path;
  for (const r of ['/healthz', '/livez', '/readyz']) if (p === r || p.startsWith(`${r}/`)) return true;
  return PUBLIC_PATHS.has(p);
}

const failures = new WeakMap<ApiRequest, unknown>();
/** the anonymous users this filter set (an impersonated system:anonymous is not one of them) */
const anonymousUsers = new WeakSet<UserInfo>();

/** Whether `user` is the anonymous user the filter gave a request without credentials to a public path. */
export function isPublicAnonymous(user: UserInfo | undefined): boolean {
  return !!user && anonymousUsers.has(user);
}

/** Answers a request whose authentication failed with its error (a 401 Status). */
export const unauthorizedHandler: Handler = async (req, res) => {
  writeError(res, failures.get(req) ?? newUnauthorized());
};

/**
 * @param authentication the token authenticators; undefined = only the transport's user
 * @param failed answers failed authentications (usually the audited {@link unauthorizedHandler})
 */
export function withAuthentication(next: Handler, authentication: Authentication | undefined, failed: Handler): Handler {
  return async (req, res) => {
    try {
      if (authentication) await authentication.authenticate(req);
      if (!req.user) {
        if (!isPublic(req)) throw newUnauthorized();
        const anonymous = { username: ANONYMOUS.username, groups: [...ANONYMOUS.groups] };
        anonymousUsers.add(anonymous);
        req.user = anonymous;
      }
    } catch (e) {
      failures.set(req, e);
      return failed(req, res);
    }
    return next(req, res);
  };
}
