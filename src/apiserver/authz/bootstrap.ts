/**
 * Reconciles the bootstrap RBAC policy into the cluster (kube-apiserver's
 * `rbac/bootstrap-roles` post-start hook): missing roles and bindings are created;
 * existing ones annotated `rbac.authorization.kubernetes.io/autoupdate: "true"` get
 * missing rules and subjects added (aggregated roles are left to the aggregation
 * controller).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/rbac/rest/storage_rbac.go
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles } from './bootstrap-policy.js';

const G = 'rbac.authorization.k8s.io';
const ref = (resource: string, kind: string, namespaced: boolean): ResourceRef => ({ group: G, version: 'v1', resource, kind, namespaced });
export const RBAC_REFS = {
  roles: ref('roles', 'Role', true),
  clusterroles: ref('clusterroles', 'ClusterRole', false),
  rolebindings: ref('rolebindings', 'RoleBinding', true),
  clusterrolebindings: ref('clusterrolebindings', 'ClusterRoleBinding', false),
};
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';

async function reconcile<T extends KObject>(client: Client, r: ResourceRef, want: T, merge: (cur: T, want: T) => T | undefined): Promise<void> {
  const ns = want.metadata?.namespace ?? '';
  try {
    await client.create(r, ns, want);
    return;
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  let cur: T;
  try {
    cur = await client.get<T>(r, ns, want.metadata!.name!);
  } catch (e) {
    if (isNotFound(e)) return;
    throw e;
  }
  if (cur.metadata?.annotations?.[AUTOUPDATE] === 'false') return;
  const next = merge(cur, want);
  if (next) await client.update(r, ns, next);
}

function addMissing<X>(cur: X[] | undefined, want: X[] | undefined): X[] | undefined {
  const have = new Set((cur ?? []).map((x) => JSON.stringify(x)));
  const add = (want ?? []).filter((x) => !have.has(JSON.stringify(x)));
  return add.length ? [...(cur ?? []), ...add] : undefined;
}

/** Creates or tops up every bootstrap role and binding. Idempotent. */
export async function ensureBootstrapPolicy(client: Client): Promise<void> {
  const roleMerge = <T extends (ClusterRole | Role) & KObject>(cur: T, want: T): T | undefined => {
    if ((cur as ClusterRole).aggregationRule) return undefined;
    const rules = addMissing(cur.rules, want.rules);
    return rules ? { ...cur, rules } : undefined;
  };
  const bindingMerge = <T extends (ClusterRoleBinding | RoleBinding) & KObject>(cur: T, want: T): T | undefined => {
    const subjects = addMissing(cur.subjects, want.subjects);
    return subjects ? { ...cur, subjects } : undefined;
  };
  await Promise.all(bootstrapClusterRoles().map((r) => reconcile(client, RBAC_REFS.clusterroles, r as ClusterRole & KObject, roleMerge)));
  await Promise.all(bootstrapClusterRoleBindings().map((b) => reconcile(client, RBAC_REFS.clusterrolebindings, b as ClusterRoleBinding & KObject, bindingMerge)));
  await Promise.all(bootstrapRoles().map((r) => reconcile(client, RBAC_REFS.roles, r as Role & KObject, roleMerge)));
  await Promise.all(bootstrapRoleBindings().map((b) => reconcile(client, RBAC_REFS.rolebindings, b as RoleBinding & KObject, bindingMerge)));
}
