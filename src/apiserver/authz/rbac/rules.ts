/**
 * RBAC rule matching (upstream rbac.RuleAllows and helpers): a PolicyRule allows a
 * request when its verbs, API groups, resources (with `*`, `res/*` and `* /sub` forms),
 * and resourceNames match — or, for non-resource requests, its nonResourceURLs match
 * (exact or trailing `*` prefix).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authorizer/rbac/rbac.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/rbac/v1/evaluation_helpers.go
 */
import type { PolicyRule, Subject } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../api/resource.js';
import type { AuthorizationAttributes } from '../../apiserver.js';

export const ALL = '*';

/** Does `verbs` contain the request's verb (or `*`)? */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === ALL || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === ALL || g === group) return true;
  return false;
}

/** `resource` or `resource/subresource`, with `*`, `res/*` and `* /sub` wildcards. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL) return true;
    if (r === combined) return true;
    if (!subresource) continue;
    // "*/scale" matches any resource's scale subresource
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
    // "pods/*" matches every subresource of pods
    if (r.endsWith('/*') && combined.startsWith(r.slice(0, -1))) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  for (const n of names) if (n === name) return true;
  return false;
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Upstream RuleAllows. */
export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (a.isResourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

export function rulesAllow(a: AuthorizationAttributes, rules: readonly PolicyRule[]): boolean {
  for (const r of rules) if (ruleAllows(a, r)) return true;
  return false;
}

/**
 * Does `subject` name this user (upstream appliesToUser)? ServiceAccount subjects match
 * `system:serviceaccount:<ns>:<name>`; an empty SA namespace takes the binding's.
 */
export function appliesToUser(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      if (!ns) return false;
      return user.username === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** Compact text of a rule as upstream's PolicyRule.CompactString (used in escalation errors). */
export function compactRuleString(r: PolicyRule): string {
  const parts: string[] = [];
  // Go's %q of a []string: ["a" "b"]
  const fmt = (name: string, v: string[] | undefined): void => {
    if (v && v.length) parts.push(`${name}:[${v.map((s) => JSON.stringify(s)).join(' ')}]`);
  };
  fmt('APIGroups', r.apiGroups);
  fmt('Resources', r.resources);
  fmt('NonResourceURLs', r.nonResourceURLs);
  fmt('ResourceNames', r.resourceNames);
  fmt('Verbs', r.verbs);
  return `{${parts.join(', ')}}`;
}
