/**
 * The escalation guard the RBAC registry runs before writes (upstream
 * policybased storage + EscalationAllowed/BindingAuthorized/ConfirmNoEscalation).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/rbac/escalation_check.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/rbac/role/policybased/storage.go
 */
import type { PolicyRule, RoleRef } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../api/resource.js';
import type { EscalationGuard } from '../../../api/rbac/definitions.js';
import { RBAC_GROUP } from '../../../api/rbac/validation.js';
import { newForbidden, newNotFound } from '../../../apimachinery/errors.js';
import { resourceAttributes, SYSTEM_PRIVILEGED_GROUP, type UnionAuthorizer } from '../types.js';
import { escalationError } from './escalation.js';
import type { RuleResolver } from './resolver.js';

const RESOURCE: Record<string, string> = {
  Role: 'roles',
  ClusterRole: 'clusterroles',
  RoleBinding: 'rolebindings',
  ClusterRoleBinding: 'clusterrolebindings',
};

export class RBACEscalationGuard implements EscalationGuard {
  constructor(
    private readonly resolver: RuleResolver,
    private readonly authorizer: UnionAuthorizer,
  ) {}

  private allowed(user: UserInfo, verb: string, resource: string, ns: string, name: string): boolean {
    if (user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return true;
    return this.authorizer.decide(resourceAttributes(user, verb, RBAC_GROUP, resource, ns, name)).decision === 'Allow';
  }

  async checkRole(user: UserInfo, kind: 'Role' | 'ClusterRole', ns: string, name: string, rules: PolicyRule[], aggregated: boolean): Promise<void> {
    const resource = RESOURCE[kind]!;
    if (this.allowed(user, 'escalate', resource, ns, name)) return;
    const gr = { group: RBAC_GROUP, resource };
    if (aggregated) throw newForbidden(gr, name, 'must have cluster-admin privileges to use the aggregationRule');
    const err = escalationError(user, this.resolver.rulesFor(user, ns), rules);
    if (err) throw newForbidden(gr, name, err);
  }

  async checkBinding(user: UserInfo, kind: 'RoleBinding' | 'ClusterRoleBinding', ns: string, name: string, ref: RoleRef): Promise<void> {
    const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
    // a ClusterRole referenced by a RoleBinding is bound within the binding's namespace
    if (this.allowed(user, 'bind', refResource, ns, ref.name)) return;
    const gr = { group: RBAC_GROUP, resource: RESOURCE[kind]! };
    const src = this.resolver.source;
    const role = ref.kind === 'Role' ? src.getRole(ns, ref.name) : src.getClusterRole(ref.name);
    if (!role) throw newNotFound({ group: RBAC_GROUP, resource: refResource }, ref.name);
    const err = escalationError(user, this.resolver.rulesFor(user, ns), role.rules ?? []);
    if (err) throw newForbidden(gr, name, err);
  }
}
