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
import { ruleAllows } from './rules.js';

export class RBACAuthorizer implements DecisionAuthorizer {
  readonly name = 'RBAC';
  readonly resolver: RuleResolver;
  constructor(source: RBACSource) {
    this.resolver = new RuleResolver(source);
  }

  /** Allow with upstream's reason `RBAC: allowed by <binding> of <role> to <subject>`, or NoOpinion. */
  decide(a: AuthorizationAttributes): Decision {
    const c = this.resolver.clusterRulesSourced(a.user);
    for (let i = 0; i < c.rules.length; i++) if (ruleAllows(a, c.rules[i]!)) return { decision: 'Allow', reason: `RBAC: allowed by ${c.sources[i]}` };
    if (a.namespace) {
      const n = this.resolver.namespaceRulesSourced(a.user, a.namespace);
      for (let i = 0; i < n.rules.length; i++) if (ruleAllows(a, n.rules[i]!)) return { decision: 'Allow', reason: `RBAC: allowed by ${n.sources[i]}` };
    }
    return { decision: 'NoOpinion', reason: '' };
  }
}
