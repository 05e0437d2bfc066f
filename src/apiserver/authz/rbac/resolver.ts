/**
 * RBAC rule resolution (upstream DefaultRuleResolver): the rules a user holds
 * cluster-wide (ClusterRoleBindings) and in a namespace (RoleBindings), read from an
 * {@link RBACSource} and memoised per user until any RBAC object changes.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/rbac/validation/rule.go
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../api/resource.js';
import { appliesToUser } from './rules.js';

/** Read access to RBAC objects (an informer cache in upstream). */
export interface RBACSource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listClusterRoleBindings(): readonly ClusterRoleBinding[];
  listRoleBindings(namespace: string): readonly RoleBinding[];
  /** changes whenever any RBAC object changes (invalidates memoised rules) */
  readonly generation: number;
}

/** An in-memory source (tests, bootstrap checks). */
export class StaticRBACSource implements RBACSource {
  generation = 0;
  roles: Role[] = [];
  clusterRoles: ClusterRole[] = [];
  roleBindings: RoleBinding[] = [];
  clusterRoleBindings: ClusterRoleBinding[] = [];
  constructor(init: Partial<Pick<StaticRBACSource, 'roles' | 'clusterRoles' | 'roleBindings' | 'clusterRoleBindings'>> = {}) {
    Object.assign(this, init);
  }
  /** Call after mutating the arrays. */
  touch(): void {
    this.generation++;
  }
  getRole(ns: string, name: string): Role | undefined {
    return this.roles.find((r) => r.metadata?.namespace === ns && r.metadata?.name === name);
  }
  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.find((r) => r.metadata?.name === name);
  }
  listClusterRoleBindings(): readonly ClusterRoleBinding[] {
    return this.clusterRoleBindings;
  }
  listRoleBindings(ns: string): readonly RoleBinding[] {
    return this.roleBindings.filter((b) => b.metadata?.namespace === ns);
  }
}

const EMPTY: readonly PolicyRule[] = Object.freeze([]);

/** Rules with, per rule, the binding that granted it (upstream's visitor source). */
export interface SourcedRules {
  rules: PolicyRule[];
  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, parallel to `rules` */
  sources: string[];
}

const EMPTY_SOURCED: SourcedRules = Object.freeze({ rules: [], sources: [] }) as unknown as SourcedRules;

/** Upstream describeSubject: `User "alice"`, `ServiceAccount "ns/name"`. */
function describeSubject(s: { kind: string; name: string; namespace?: string }, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.namespace || bindingNamespace}/${s.name}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}
const MAX_MEMO = 4096;

export class RuleResolver {
  private memoGen = -1;
  private readonly memo = new Map<string, SourcedRules>();

  constructor(readonly source: RBACSource) {}

  /** The rules of the role a binding refers to (`namespace` '' for ClusterRoleBindings). */
  roleRules(ref: RoleRef, namespace: string): readonly PolicyRule[] {
    if (ref.apiGroup !== 'rbac.authorization.k8s.io') return EMPTY;
    if (ref.kind === 'ClusterRole') return this.source.getClusterRole(ref.name)?.rules ?? EMPTY;
    if (ref.kind === 'Role' && namespace) return this.source.getRole(namespace, ref.name)?.rules ?? EMPTY;
    return EMPTY;
  }

  private key(user: UserInfo, ns: string): string {
    return `${ns}\u0000${user.username}\u0000${user.groups.join('\u0001')}`;
  }

  private cached(k: string, build: () => SourcedRules): SourcedRules {
    const gen = this.source.generation;
    if (gen !== this.memoGen) {
      this.memo.clear();
      this.memoGen = gen;
    }
    let r = this.memo.get(k);
    if (!r) {
      if (this.memo.size >= MAX_MEMO) this.memo.clear();
      r = build();
      this.memo.set(k, r);
    }
    return r;
  }

  /** Rules from ClusterRoleBindings naming the user, with their sources. */
  clusterRulesSourced(user: UserInfo): SourcedRules {
    return this.cached(this.key(user, '\u0002'), () => {
      const out: SourcedRules = { rules: [], sources: [] };
      for (const b of this.source.listClusterRoleBindings()) {
        const subj = b.subjects?.find((s) => appliesToUser(user, s, ''));
        if (!subj) continue;
        const src = `ClusterRoleBinding ${JSON.stringify(b.metadata?.name ?? '')} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subj, '')}`;
        for (const r of this.roleRules(b.roleRef, '')) {
          out.rules.push(r);
          out.sources.push(src);
        }
      }
      return out;
    });
  }

  /** Rules from RoleBindings in `ns` naming the user, with their sources. */
  namespaceRulesSourced(user: UserInfo, ns: string): SourcedRules {
    if (!ns) return EMPTY_SOURCED;
    return this.cached(this.key(user, ns), () => {
      const out: SourcedRules = { rules: [], sources: [] };
      for (const b of this.source.listRoleBindings(ns)) {
        const subj = b.subjects?.find((s) => appliesToUser(user, s, ns));
        if (!subj) continue;
        const src = `RoleBinding ${JSON.stringify(`${b.metadata?.name ?? ''}/${ns}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subj, ns)}`;
        for (const r of this.roleRules(b.roleRef, ns)) {
          out.rules.push(r);
          out.sources.push(src);
        }
      }
      return out;
    });
  }

  /** Rules from ClusterRoleBindings naming the user. */
  clusterRules(user: UserInfo): readonly PolicyRule[] {
    return this.clusterRulesSourced(user).rules;
  }

  /** Rules from RoleBindings in `ns` naming the user. */
  namespaceRules(user: UserInfo, ns: string): readonly PolicyRule[] {
    return this.namespaceRulesSourced(user, ns).rules;
  }

  /** Every rule the user holds in `ns` (cluster-wide rules first), upstream RulesFor. */
  rulesFor(user: UserInfo, ns: string): PolicyRule[] {
    return [...this.clusterRules(user), ...this.namespaceRules(user, ns)];
  }
}
