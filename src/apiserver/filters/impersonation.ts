/**
 * The impersonation filter (upstream WithImpersonation): with Impersonate-User,
 * -Group, -Uid or -Extra-* headers, a user allowed the `impersonate` verb acts as
 * someone else from here on (see src/apiserver/authn/impersonation.ts for the checks).
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/endpoints/filters/impersonation.go
 */
import { impersonate } from '../authn/impersonation.js';
import type { UnionAuthorizer } from '../authz/types.js';
import { writeError } from '../http/respond.js';
import type { Handler } from './types.js';

/**
 * @param authorizer decides the `impersonate` checks; undefined = Impersonate-* headers
 *   are not looked at (servers without authorization)
 */
export function withImpersonation(next: Handler, authorizer: UnionAuthorizer | undefined): Handler {
  if (!authorizer) return next;
  return async (req, res) => {
    try {
      if (req.user) impersonate(req, authorizer);
    } catch (e) {
      writeError(res, e);
      return;
    }
    return next(req, res);
  };
}
