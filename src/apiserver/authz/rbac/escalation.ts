/**
 * RBAC escalation prevention (upstream ConfirmNoEscalation / Covers): a user may only
 * write a Role, ClusterRole or binding granting permissions they already hold, unless
 * they hold `escalate` (roles) or `bind` (bindings) on it or are in system:masters.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/rbac/validation/policy_comparator.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/rbac/escalation_check.go
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../api/resource.js';
import { ALL, compactRuleString } from './rules.js';

/** One verb on one group/resource/name, or one verb on one non-resource URL. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  for (const g of rule.apiGroups ?? []) {
    for (const r of rule.resources ?? []) {
      for (const v of verbs) {
        if (rule.resourceNames?.length) for (const n of rule.resourceNames) out.push({ apiGroups: [g], resources: [r], resourceNames: [n], verbs: [v] });
        else out.push({ apiGroups: [g], resources: [r], verbs: [v] });
      }
    }
  }
  for (const u of rule.nonResourceURLs ?? []) for (const v of verbs) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

function has(list: string[] | undefined, v: string): boolean {
  return !!list && (list.includes(ALL) || list.includes(v));
}

function resourceCovers(owner: string[] | undefined, r: string): boolean {
  if (!owner) return false;
  for (const o of owner) {
    if (o === ALL || o === r) return true;
    const slash = r.indexOf('/');
    if (o.endsWith('/*') && slash > 0 && r.startsWith(o.slice(0, -1))) return true;
    if (o.startsWith('*/') && slash > 0 && r.slice(slash + 1) === o.slice(2)) return true;
  }
  return false;
}

function urlCovers(owner: string[] | undefined, u: string): boolean {
  if (!owner) return false;
  for (const o of owner) {
    if (o === ALL || o === u) return true;
    if (o.endsWith('*') && u.startsWith(o.slice(0, -1))) return true;
  }
  return false;
}

/** Does `owner` cover the atomic rule `s` (upstream ruleCovers)? */
function ruleCovers(owner: PolicyRule, s: PolicyRule): boolean {
  if (!has(owner.verbs, s.verbs![0]!)) return false;
  if (s.nonResourceURLs?.length) return urlCovers(owner.nonResourceURLs, s.nonResourceURLs[0]!);
  if (!has(owner.apiGroups, s.apiGroups![0]!)) return false;
  if (!resourceCovers(owner.resources, s.resources![0]!)) return false;
  if (owner.resourceNames?.length) return !!s.resourceNames?.length && owner.resourceNames.includes(s.resourceNames[0]!);
  return true;
}

/** The atomic parts of `servant` no rule of `owner` covers (empty = covered). */
export function uncoveredRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const r of servant) for (const a of breakdown(r)) if (!owner.some((o) => ruleCovers(o, a))) missing.push(a);
  return missing;
}

/** Merges atomic rules that differ only in verb (upstream CompactRules), sorted by text. */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byKey = new Map<string, PolicyRule>();
  for (const r of rules) {
    if (r.nonResourceURLs?.length) {
      out.push(r);
      continue;
    }
    const k = JSON.stringify([r.apiGroups, r.resources, r.resourceNames ?? []]);
    const cur = byKey.get(k);
    if (cur) {
      if (!cur.verbs!.includes(r.verbs![0]!)) cur.verbs!.push(r.verbs![0]!);
    } else {
      const c: PolicyRule = { ...r, verbs: [...r.verbs!] };
      byKey.set(k, c);
      out.push(c);
    }
  }
  return out
    .map((r) => [compactRuleString(r), r] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, r]) => r);
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuoteList(v: readonly string[]): string {
  return `[${v.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/**
 * The reason text upstream gives when a write would escalate, or undefined when
 * `ownerRules` cover `rules`:
 * `user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
 */
export function escalationError(user: UserInfo, ownerRules: readonly PolicyRule[], rules: readonly PolicyRule[]): string | undefined {
  const missing = uncoveredRules(ownerRules, rules);
  if (missing.length === 0) return undefined;
  const lines = compactRules(missing).map(compactRuleString);
  return `user ${JSON.stringify(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
}
