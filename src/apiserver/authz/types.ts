/**
 * Authorizer decisions as upstream's authorizer.Decision (Allow, Deny, NoOpinion) and
 * the union that chains authorizers (`--authorization-mode=Node,RBAC`), adapted to the
 * API server's {@link Authorizer} interface.
 *
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/authorization/authorizer/interfaces.go
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/authorization/union/union.go
 */
import type { AuthorizationAttributes, Authorizer } from '../apiserver.js';
import { addAuditAnnotation } from '../audit/context.js';

export interface Decision {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  /** why (appended to the Forbidden message when nothing allowed the request) */
  reason: string;
}

/** One authorization mode. Synchronous: modes read in-memory caches. */
export interface DecisionAuthorizer {
  readonly name: string;
  decide(a: AuthorizationAttributes): Decision;
}

/** Upstream's privileged group: members are allowed everything without consulting RBAC. */
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

/**
 * The authorizer chain: system:masters first, then each mode in order; the first Allow
 * or Deny wins; NoOpinion reasons are joined with "\n".
 */
export class UnionAuthorizer implements Authorizer {
  constructor(readonly modes: DecisionAuthorizer[]) {}

  decide(a: AuthorizationAttributes): Decision {
    if (a.user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return { decision: 'Allow', reason: '' };
    let reasons: string[] | undefined;
    for (const m of this.modes) {
      const d = m.decide(a);
      if (d.decision !== 'NoOpinion') return d;
      if (d.reason) (reasons ??= []).push(d.reason);
    }
    return { decision: 'NoOpinion', reason: reasons ? reasons.join('\n') : '' };
  }

  async authorize(a: AuthorizationAttributes): Promise<{ allowed: boolean; reason?: string }> {
    const d = this.decide(a);
    addAuditAnnotation('authorization.k8s.io/decision', d.decision === 'Allow' ? 'allow' : 'forbid');
    addAuditAnnotation('authorization.k8s.io/reason', d.reason);
    return d.decision === 'Allow' ? { allowed: true } : { allowed: false, reason: d.reason || undefined };
  }
}

/** Attributes for a resource request (tests, reviews, admission checks). */
export function resourceAttributes(
  user: AuthorizationAttributes['user'],
  verb: string,
  group: string,
  resource: string,
  namespace = '',
  name = '',
  subresource = '',
): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup: group, apiVersion: '*', namespace, resource, subresource, name };
}
