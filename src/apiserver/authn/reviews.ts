/**
 * SelfSubjectReview (`kubectl auth whoami`) and TokenReview.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/pkg/registry/authentication
 */
import { SELF_SUBJECT_REVIEW, TOKEN_REVIEW } from '../../api/authentication/definitions.js';
import type { VirtualResource } from '../../api/authorization/virtual.js';
import type { KObject, UserInfo } from '../../api/resource.js';
import { newBadRequest } from '../../apimachinery/errors.js';
import type { Authentication } from './filter.js';
import type { ServiceAccountTokens } from './serviceaccount.js';
import { InvalidTokenError } from './types.js';

/** authentication.k8s.io/v1 UserInfo as JSON (empty fields omitted). */
export function userInfoJSON(u: UserInfo): Record<string, unknown> {
  const o: Record<string, unknown> = { username: u.username };
  if (u.uid) o.uid = u.uid;
  if (u.groups.length) o.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) o.extra = u.extra;
  return o;
}

export function authenticationReviews(authn: Authentication, sa?: ServiceAccountTokens): VirtualResource[] {
  return [
    {
      ...SELF_SUBJECT_REVIEW,
      async create(body: KObject, { user }) {
        return {
          kind: 'SelfSubjectReview',
          apiVersion: body.apiVersion,
          metadata: { ...(body.metadata ?? {}), creationTimestamp: null } as unknown as KObject['metadata'],
          status: { userInfo: userInfoJSON(user) },
        };
      },
    },
    {
      ...TOKEN_REVIEW,
      async create(body: KObject) {
        const spec = (body.spec ?? {}) as { token?: string; audiences?: string[] };
        if (!spec.token) throw newBadRequest('token is required for TokenReview in authentication');
        const status: Record<string, unknown> = {};
        try {
          const wanted = spec.audiences?.length ? spec.audiences : undefined;
          let user: UserInfo | undefined;
          let audiences: string[] | undefined;
          if (wanted && sa) {
            const r = await sa.validate(spec.token, wanted);
            if (r) ({ user, audiences } = { user: r.user, audiences: r.audiences });
          }
          if (!user) {
            user = await authn.authenticateToken(spec.token);
            audiences = sa?.apiAudiences;
          }
          if (user) {
            status.authenticated = true;
            status.user = userInfoJSON(user);
            if (audiences) status.audiences = audiences;
          } else status.user = {};
        } catch (e) {
          status.user = {};
          status.error = e instanceof InvalidTokenError ? `[invalid bearer token, ${e.message}]` : String(e);
        }
        return {
          kind: 'TokenReview',
          apiVersion: body.apiVersion,
          metadata: { ...(body.metadata ?? {}), creationTimestamp: null } as unknown as KObject['metadata'],
          spec: { ...spec },
          status,
        };
      },
    },
  ];
}
