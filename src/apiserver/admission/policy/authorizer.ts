/**
 * The `authorizer` variable of admission CEL expressions (ValidatingAdmissionPolicy):
 * the CEL authorizer library's value bound to the requesting user, deciding through the
 * API server's authorizer chain (Node, RBAC, … — synchronous, from its caches), with
 * `authorizer.requestResource` set to the request's own resource.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/activation.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/authz.go (NewResourceAuthorizerVal)
 */
import type { AuthorizationAttributes } from '../../apiserver.js';
import { type AuthzAttributes, type AuthzDecide, CelAuthorizer } from '../../../cel/library/authz.js';
import type { Decision } from '../../authz/types.js';
import type { AdmissionAttributes } from '../types.js';

/** What the bridge needs of the API server's authorizer (UnionAuthorizer has it). */
export interface DecidingAuthorizer {
  decide(a: AuthorizationAttributes): Decision;
}

/** A CEL decide function over `authz`; an exception becomes the decision's error (NoOpinion). */
export function decideWith(authz: DecidingAuthorizer): AuthzDecide {
  return (a: AuthzAttributes) => {
    try {
      const d = authz.decide({ ...a, user: { ...a.user, groups: [...a.user.groups] } });
      return { decision: d.decision, reason: d.reason };
    } catch (e) {
      return { decision: 'NoOpinion', reason: '', error: (e as Error).message };
    }
  };
}

/** The `authorizer` value for one admission request (null without an authorizer). */
export function requestAuthorizer(authz: DecidingAuthorizer | undefined, a: AdmissionAttributes): CelAuthorizer | null {
  if (!authz) return null;
  return new CelAuthorizer(a.user, decideWith(authz), {
    group: a.resource.group,
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
  });
}
