/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding:
 * validation, printers (upstream printRole/printRoleBinding), and the escalation check
 * run before every write (upstream's policybased storage).
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/pkg/registry/rbac
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import { invalid } from '../../apimachinery/field-errors.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../core/v1/shared/printing.js';
import type { KObject, Obj, ResourceDefinition, StrategyContext, TableColumnDefinition, UserInfo } from '../resource.js';
import { RBAC_GROUP, validateAggregationRule, validateRBACName, validateRoleRef, validateRules, validateSubjects } from './validation.js';

type K<T> = T & KObject;

/**
 * Checks a write of RBAC data against the writer's own permissions; throws a
 * StatusError (403 Forbidden, 404 for a missing referenced role) to refuse it.
 */
export interface EscalationGuard {
  checkRole(user: UserInfo, kind: 'Role' | 'ClusterRole', namespace: string, name: string, rules: PolicyRule[], aggregated: boolean): Promise<void>;
  checkBinding(user: UserInfo, kind: 'RoleBinding' | 'ClusterRoleBinding', namespace: string, name: string, ref: RoleRef): Promise<void>;
}

const CREATED_AT: TableColumnDefinition = column('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

function roleTable<T extends KObject>(): ResourceDefinition<T>['table'] {
  return {
    columns: [NAME_COLUMN, CREATED_AT],
    cells: (o) => [o.metadata.name ?? '', o.metadata.creationTimestamp ?? null],
  };
}

function subjectsOf(subjects: Subject[] | undefined): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
    else if (s.kind === 'ServiceAccount') sas.push(`${s.namespace ?? ''}/${s.name}`);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingTable<T extends K<{ roleRef: RoleRef; subjects?: Subject[] }>>(): ResourceDefinition<T>['table'] {
  return {
    columns: [
      NAME_COLUMN,
      column('Role', 'string', 'RoleRef is the reference to the role.'),
      AGE_COLUMN,
      column('Users', 'string', 'Users in the binding.', 1),
      column('Groups', 'string', 'Groups in the binding.', 1),
      column('ServiceAccounts', 'string', 'ServiceAccounts in the binding.', 1),
    ],
    cells: (o, now) => [
      o.metadata.name ?? '',
      `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`,
      translateTimestampSince(o.metadata.creationTimestamp, now),
      ...subjectsOf(o.subjects),
    ],
  };
}

const roleRefImmutable = (obj: { roleRef?: RoleRef }, old: { roleRef?: RoleRef }) =>
  jsonEqual(obj.roleRef, old.roleRef) ? [] : [invalid('roleRef', obj.roleRef, 'cannot change roleRef')];

const base = { group: RBAC_GROUP, version: 'v1', validateName: validateRBACName, allowUnconditionalUpdate: true } as const;

/** The four RBAC resources; `guard` enforces escalation prevention (omit only in tests). */
export function rbacDefinitions(guard?: EscalationGuard): ResourceDefinition[] {
  const role: ResourceDefinition<K<Role>> = {
    ...base,
    kind: 'Role',
    listKind: 'RoleList',
    resource: 'roles',
    singular: 'role',
    namespaced: true,
    schemaRef: 'rbac/v1#Role',
    validate: (o) => validateRules(o.rules, true),
    validateUpdate: (o) => validateRules(o.rules, true),
    table: roleTable(),
    hooks: guard && {
      beforeCreate: (o, c) => guard.checkRole(c.user, 'Role', c.namespace, o.metadata.name!, o.rules ?? [], false),
      beforeUpdate: (o, _old, c) => guard.checkRole(c.user, 'Role', c.namespace, o.metadata.name!, o.rules ?? [], false),
    },
  };
  const clusterRole: ResourceDefinition<K<ClusterRole>> = {
    ...base,
    kind: 'ClusterRole',
    listKind: 'ClusterRoleList',
    resource: 'clusterroles',
    singular: 'clusterrole',
    namespaced: false,
    schemaRef: 'rbac/v1#ClusterRole',
    validate: (o) => [...validateRules(o.rules, false), ...validateAggregationRule(o.aggregationRule)],
    validateUpdate: (o) => [...validateRules(o.rules, false), ...validateAggregationRule(o.aggregationRule)],
    table: roleTable(),
    hooks: guard && {
      beforeCreate: (o, c) => guard.checkRole(c.user, 'ClusterRole', '', o.metadata.name!, o.rules ?? [], !!o.aggregationRule),
      beforeUpdate: (o, old, c) =>
        guard.checkRole(c.user, 'ClusterRole', '', o.metadata.name!, o.rules ?? [], !!o.aggregationRule && !jsonEqual(o.aggregationRule, old.aggregationRule)),
    },
  };
  const bindingHooks = <T extends K<RoleBinding>>(kind: 'RoleBinding' | 'ClusterRoleBinding') =>
    guard && {
      beforeCreate: (o: Obj<T>, c: StrategyContext) => guard.checkBinding(c.user, kind, c.namespace, o.metadata.name!, o.roleRef),
      beforeUpdate: (o: Obj<T>, _old: Obj<T>, c: StrategyContext) => guard.checkBinding(c.user, kind, c.namespace, o.metadata.name!, o.roleRef),
    };
  const roleBinding: ResourceDefinition<K<RoleBinding>> = {
    ...base,
    kind: 'RoleBinding',
    listKind: 'RoleBindingList',
    resource: 'rolebindings',
    singular: 'rolebinding',
    namespaced: true,
    schemaRef: 'rbac/v1#RoleBinding',
    validate: (o) => [...validateRoleRef(o.roleRef, true), ...validateSubjects(o.subjects, true)],
    validateUpdate: (o, old) => [...validateRoleRef(o.roleRef, true), ...validateSubjects(o.subjects, true), ...roleRefImmutable(o, old)],
    table: bindingTable(),
    hooks: bindingHooks('RoleBinding'),
  };
  const clusterRoleBinding: ResourceDefinition<K<ClusterRoleBinding>> = {
    ...base,
    kind: 'ClusterRoleBinding',
    listKind: 'ClusterRoleBindingList',
    resource: 'clusterrolebindings',
    singular: 'clusterrolebinding',
    namespaced: false,
    schemaRef: 'rbac/v1#ClusterRoleBinding',
    validate: (o) => [...validateRoleRef(o.roleRef, false), ...validateSubjects(o.subjects, false)],
    validateUpdate: (o, old) => [...validateRoleRef(o.roleRef, false), ...validateSubjects(o.subjects, false), ...roleRefImmutable(o, old)],
    table: bindingTable(),
    hooks: bindingHooks('ClusterRoleBinding') as ResourceDefinition<K<ClusterRoleBinding>>['hooks'],
  };
  return [role, clusterRole, roleBinding, clusterRoleBinding] as unknown as ResourceDefinition[];
}
