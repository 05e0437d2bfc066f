/**
 * User impersonation (`kubectl --as`, `--as-group`, `--as-uid`): with the
 * Impersonate-* headers a user with the `impersonate` verb on users, groups,
 * serviceaccounts, uids and userextras acts as someone else.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#user-impersonation
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/impersonation.go
 */
import type { UserInfo } from '../../api/resource.js';
import { newBadRequest } from '../../apimachinery/errors.js';
import type { AuthorizationAttributes } from '../apiserver.js';
import { forbiddenFor } from '../filters/authorization.js';
import type { RequestInfo } from '../http/request-info.js';
import type { ApiRequest } from '../http/types.js';
import type { UnionAuthorizer } from '../authz/types.js';
import { AUTHENTICATED_GROUP, ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './types.js';
import { SA_GROUP, SA_PREFIX } from './serviceaccount.js';

const EXTRA_PREFIX = 'impersonate-extra-';

function list(v: string | undefined): string[] {
  if (v === undefined) return [];
  return v.split(', ').filter((s) => s !== '');
}

function info(verb: string, group: string, resource: string, ns: string, name: string, subresource = ''): RequestInfo {
  return { isResourceRequest: true, path: '', verb, apiPrefix: 'apis', apiGroup: group, apiVersion: '', namespace: ns, resource, subresource, name, parts: [] };
}

/**
 * Replaces `req.user` by the impersonated user when Impersonate-* headers are present.
 * @throws StatusError 403 when the acting user may not impersonate, 400 on bad headers
 */
export function impersonate(req: ApiRequest, authorizer: UnionAuthorizer): void {
  const h = req.headers;
  // fast path: no Impersonate-* header at all (nearly every request)
  let any = false;
  for (const k in h) {
    if (k.length > 12 && k.charCodeAt(0) === 105 && k.startsWith('impersonate-')) {
      any = true;
      break;
    }
  }
  if (!any) return;
  const userName = h['impersonate-user'];
  const groups = list(h['impersonate-group']);
  const uid = h['impersonate-uid'];
  const extraKeys = Object.keys(h).filter((k) => k.startsWith(EXTRA_PREFIX));
  if (userName === undefined && !groups.length && uid === undefined && !extraKeys.length) return;
  const actor = req.user;
  if (!actor) return;
  if (!userName) throw newBadRequest('requested impersonation (groups, uid, or extra) without impersonating a user');
  const checks: RequestInfo[] = [];
  let saNs = '';
  let saName = '';
  if (userName.startsWith(SA_PREFIX) && userName.split(':').length === 4) {
    [, , saNs, saName] = userName.split(':') as [string, string, string, string];
    checks.push(info('impersonate', '', 'serviceaccounts', saNs, saName));
  } else checks.push(info('impersonate', '', 'users', '', userName));
  for (const g of groups) checks.push(info('impersonate', '', 'groups', '', g));
  if (uid !== undefined) checks.push(info('impersonate', 'authentication.k8s.io', 'uids', '', uid));
  const extra: Record<string, string[]> = {};
  for (const k of extraKeys) {
    const key = decodeURIComponent(k.slice(EXTRA_PREFIX.length)).toLowerCase();
    extra[key] = list(h[k]);
    for (const v of extra[key]!) checks.push(info('impersonate', 'authentication.k8s.io', 'userextras', '', v, key));
  }
  for (const c of checks) {
    const attrs: AuthorizationAttributes = { user: actor, ...c };
    const d = authorizer.decide(attrs);
    if (d.decision !== 'Allow') throw forbiddenFor(actor, c, d.reason || undefined);
  }
  const u: UserInfo = { username: userName, groups: [...groups] };
  if (uid !== undefined) u.uid = uid;
  if (extraKeys.length) u.extra = extra;
  if (saNs) {
    for (const g of [SA_GROUP, `${SA_GROUP}:${saNs}`]) if (!u.groups.includes(g)) u.groups.push(g);
  }
  if (userName === ANONYMOUS_USER) {
    if (!u.groups.includes(UNAUTHENTICATED_GROUP)) u.groups.push(UNAUTHENTICATED_GROUP);
  } else if (!u.groups.includes(AUTHENTICATED_GROUP) && !u.groups.includes(UNAUTHENTICATED_GROUP)) u.groups.push(AUTHENTICATED_GROUP);
  req.user = u;
  for (const k of ['impersonate-user', 'impersonate-group', 'impersonate-uid', ...extraKeys]) delete h[k];
}
