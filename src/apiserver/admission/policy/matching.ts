/**
 * Which admission requests a policy's (or a binding's) match resources select, as
 * upstream's policy `matching` package decides with the webhook predicates: rules
 * (operations, apiGroups, apiVersions, resources with `*`/`res/sub`/`*\/sub`, scope,
 * resourceNames), `excludeResourceRules`, `namespaceSelector` (cluster-scoped requests
 * other than namespaces always match; a namespace request uses the namespace's own
 * labels), `objectSelector` (the new or the old object's labels).
 *
 * `matchPolicy: Equivalent` matches the request's own group/version/resource: k8ts
 * serves each resource at one version, so there is no equivalent resource to convert to.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go
 */
import type { MatchResources } from 'kubernetes-types/admissionregistration/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { ObjectLookup } from '../../../api/resource.js';
import { labelSelectorAsSelector } from '../../../apimachinery/labels.js';
import type { AdmissionAttributes } from '../types.js';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

/** admissionregistration/v1 NamedRuleWithOperations (kubernetes-types leaves out the embedded Rule's resources and scope). */
export interface NamedRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

/** upstream rules.Matcher: does one rule select the request? */
export function ruleMatches(rule: NamedRule, a: AdmissionAttributes): boolean {
  const any = (list: readonly string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);
  if (!any(rule.operations, a.operation)) return false;
  if (!any(rule.apiGroups, a.resource.group)) return false;
  if (!any(rule.apiVersions, a.resource.version)) return false;
  const resOk = (rule.resources ?? []).some((r) => {
    const i = r.indexOf('/');
    const res = i < 0 ? r : r.slice(0, i);
    const sub = i < 0 ? '' : r.slice(i + 1);
    return (res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource);
  });
  if (!resOk) return false;
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  switch (rule.scope ?? '*') {
    case 'Namespaced':
      if (isNamespace || a.namespace === '') return false;
      break;
    case 'Cluster':
      if (!isNamespace && a.namespace !== '') return false;
      break;
  }
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

function labelsOf(o: unknown): Record<string, string> | undefined {
  return (o as { metadata?: { labels?: Record<string, string> } } | undefined)?.metadata?.labels;
}

/** upstream object.Matcher.MatchObjectSelector. */
export function objectSelectorMatches(sel: LabelSelector | undefined, a: AdmissionAttributes): boolean {
  const s = labelSelectorAsSelector(sel ?? {});
  if (s.empty()) return true;
  return (a.object !== undefined && s.matches(labelsOf(a.object) ?? {})) || (a.oldObject !== undefined && s.matches(labelsOf(a.oldObject) ?? {}));
}

/**
 * upstream namespace.Matcher.MatchNamespaceSelector.
 * @throws StatusError NotFound when the request's namespace does not exist
 */
export async function namespaceSelectorMatches(sel: LabelSelector | undefined, a: AdmissionAttributes, lookup: ObjectLookup): Promise<boolean> {
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  if (a.namespace === '' && !isNamespace) return true;
  const s = labelSelectorAsSelector(sel ?? {});
  if (s.empty()) return true;
  if (isNamespace) return s.matches(labelsOf(a.object ?? a.oldObject) ?? {});
  const ns = await lookup.get(NAMESPACES, '', a.namespace);
  return s.matches(labelsOf(ns) ?? {});
}

/**
 * upstream matching.Matches: the selectors, then not excluded, then one rule matches
 * (no rules: everything, as for a binding without resource rules).
 */
export async function matchResourcesMatch(m: MatchResources | undefined, a: AdmissionAttributes, lookup: ObjectLookup): Promise<boolean> {
  if (m === undefined) return false;
  if (!(await namespaceSelectorMatches(m.namespaceSelector, a, lookup))) return false;
  if (!objectSelectorMatches(m.objectSelector, a)) return false;
  if ((m.excludeResourceRules ?? []).some((r) => ruleMatches(r, a))) return false;
  const rules = m.resourceRules ?? [];
  return rules.length === 0 || rules.some((r) => ruleMatches(r, a));
}
