/**
 * Which requests a webhook's `rules` select (upstream predicates/rules): a rule matches
 * when its scope, operations, apiGroups, apiVersions and resources all do. `*` matches
 * any value; `resources` entries are `<resource>` (the main resource only),
 * `<resource>/<subresource>`, `*` (every main resource, no subresource), `*\/status`
 * (every status subresource), `pods/*` (pods and every subresource of pods) and `*\/*`
 * (everything).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/predicates/rules/rules.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#matching-requests-rules
 */
import type { RuleWithOperations as TypesRule } from 'kubernetes-types/admissionregistration/v1.js';
import type { GroupVersionResource } from '../../../api/resource.js';

/** admissionregistration/v1 RuleWithOperations (kubernetes-types drops the inlined Rule's `resources` and `scope`). */
export type RuleWithOperations = TypesRule & { resources?: string[]; scope?: string };

/** What a rule looks at in a request. */
export interface RuleAttributes {
  operation: string;
  resource: GroupVersionResource;
  subresource: string;
  /** the request's namespace ('' for cluster-scoped resources other than namespaces) */
  namespace: string;
}

const exactOrWildcard = (items: readonly string[] | undefined, requested: string): boolean => (items ?? []).some((i) => i === '*' || i === requested);

const isNamespaceResource = (r: GroupVersionResource): boolean => r.group === '' && r.version === 'v1' && r.resource === 'namespaces';

/** Does the rule's scope (`*`, `Namespaced`, `Cluster`; unset = `*`) take the request? Namespaces count as cluster-scoped. */
function scopeMatches(scope: string | undefined, a: RuleAttributes): boolean {
  if (scope === undefined || scope === null || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespaceResource(a.resource) && a.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(a.resource) || a.namespace === '';
  return false;
}

function splitResource(s: string): [string, string] {
  const i = s.indexOf('/');
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

function resourceMatches(resources: readonly string[] | undefined, a: RuleAttributes): boolean {
  for (const r of resources ?? []) {
    const [res, sub] = splitResource(r);
    if ((res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource)) return true;
  }
  return false;
}

/** Upstream rules.Matcher.Matches. */
export function ruleMatches(rule: RuleWithOperations, a: RuleAttributes): boolean {
  return (
    scopeMatches(rule.scope, a) &&
    (rule.operations ?? []).some((op) => op === '*' || op === a.operation) &&
    exactOrWildcard(rule.apiGroups, a.resource.group) &&
    exactOrWildcard(rule.apiVersions, a.resource.version) &&
    resourceMatches(rule.resources, a)
  );
}

const EXEMPT_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

/**
 * Webhooks are never called for the admission configuration objects themselves (so a
 * broken webhook cannot lock its own configuration), upstream IsExemptAdmissionConfigurationResource.
 */
export function isExemptAdmissionConfigurationResource(kind: { group: string; kind: string }): boolean {
  return kind.group === 'admissionregistration.k8s.io' && EXEMPT_KINDS.has(kind.kind);
}
