/**
 * The RBAC authorizer: allows a request when a rule of a role bound to the user (by a
 * ClusterRoleBinding, or a RoleBinding in the request's namespace) allows it; no
 * opinion otherwise.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authorizer/rbac/rbac.go
 */
import type { AuthorizationAttributes } from '../../apiserver.js';
import type { Decision, DecisionAuthorizer } from '../types.js';
import { RuleResolver, type RBACSource } from './resolver.js';
import { rulesAllow } from './rules.js';

export class RBACAuthorizer implements DecisionAuthorizer {
  readonly name = 'RBAC';
  readonly resolver: RuleResolver;
  constructor(source: RBACSource) {
    this.resolver = new RuleResolver(source);
  }

  decide(a: AuthorizationAttributes): Decision {
    if (rulesAllow(a, this.resolver.clusterRules(a.user))) return { decision: 'Allow', reason: '' };
    if (a.namespace && rulesAllow(a, this.resolver.namespaceRules(a.user, a.namespace))) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  }
}
