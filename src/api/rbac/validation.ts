/**
 * rbac.authorization.k8s.io/v1 validation (upstream pkg/apis/rbac/validation):
 * names are path segments, rules need verbs and either resources with API groups or
 * non-resource URLs (cluster roles only), bindings reference a role of the right kind in
 * the rbac group, subjects name a User, Group or ServiceAccount.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/rbac/validation/validation.go
 */
import type { AggregationRule, PolicyRule, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import { type FieldError, invalid, notSupported, Path, required } from '../../apimachinery/field-errors.js';
import { validateLabelSelector } from '../../apimachinery/validation.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** Upstream path.IsValidPathSegmentName (ValidateRBACName). */
export function validateRBACName(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  const out: string[] = [];
  if (name.includes('/')) out.push(`may not contain '/'`);
  if (name.includes('%')) out.push(`may not contain '%'`);
  return out;
}

function goList(v: string[]): string {
  return `[]string{${v.map((s) => JSON.stringify(s)).join(', ')}}`;
}

function validatePolicyRule(rule: PolicyRule, namespaced: boolean, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!rule.verbs?.length) errs.push(required(p.child('verbs'), 'verbs must contain at least one value'));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length) {
    if (namespaced) errs.push(invalid(p.child('nonResourceURLs'), goList(urls), 'namespaced rules cannot apply to non-resource URLs'));
    if (rule.apiGroups?.length || rule.resources?.length || rule.resourceNames?.length) {
      errs.push(invalid(p.child('nonResourceURLs'), goList(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(required(p.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (!rule.resources?.length) errs.push(required(p.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

export function validateRules(rules: PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (rules ?? []).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, Path.root('rules').index(i))));
  return errs;
}

export function validateAggregationRule(a: AggregationRule | undefined): FieldError[] {
  if (!a) return [];
  const errs: FieldError[] = [];
  const p = Path.root('aggregationRule').child('clusterRoleSelectors');
  if (!a.clusterRoleSelectors?.length) errs.push(required(p, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  (a.clusterRoleSelectors ?? []).forEach((s, i) => errs.push(...validateLabelSelector(s, p.index(i))));
  return errs;
}

export function validateRoleRef(ref: RoleRef | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const p = Path.root('roleRef');
  const r = ref ?? ({} as RoleRef);
  if (r.apiGroup !== RBAC_GROUP) errs.push(notSupported(p.child('apiGroup'), r.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(r.kind)) errs.push(notSupported(p.child('kind'), r.kind ?? '', kinds));
  if (!r.name) errs.push(required(p.child('name'), ''));
  else for (const m of validateRBACName(r.name, false)) errs.push(invalid(p.child('name'), r.name, m));
  return errs;
}

export function validateSubjects(subjects: Subject[] | undefined, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  (subjects ?? []).forEach((s, i) => {
    const p = Path.root('subjects').index(i);
    if (!s.name) errs.push(required(p.child('name'), ''));
    switch (s.kind) {
      case 'ServiceAccount':
        if (s.apiGroup) errs.push(notSupported(p.child('apiGroup'), s.apiGroup, ['']));
        if (!namespaced && !s.namespace) errs.push(required(p.child('namespace'), ''));
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== RBAC_GROUP) errs.push(notSupported(p.child('apiGroup'), s.apiGroup ?? '', [RBAC_GROUP]));
        break;
      default:
        errs.push(notSupported(p.child('kind'), s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}
