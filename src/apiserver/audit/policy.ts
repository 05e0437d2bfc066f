/**
 * audit.k8s.io/v1 Policy: the first rule matching a request decides its audit level
 * (None, Metadata, Request, RequestResponse) and omitted stages.
 *
 * @see https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/#audit-policy
 * @see https://github.com/kubernetes/apiserver/blob/master/pkg/audit/policy/checker.go
 */
import { parseAllDocuments } from 'yaml';
import type { UserInfo } from '../../api/resource.js';
import type { RequestInfo } from '../http/request-info.js';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  apiVersion: string;
  kind: 'Policy';
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

const LEVELS: Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/**
 * Parses and validates a policy file (YAML or JSON).
 * @throws Error with upstream-like messages for a wrong kind/apiVersion or bad levels/stages
 */
export function parsePolicy(text: string): Policy {
  const docs = parseAllDocuments(text)
    .map((d) => d.toJSON() as Policy | null)
    .filter((d): d is Policy => !!d);
  if (docs.length !== 1) throw new Error(`audit policy must be a single document, found ${docs.length}`);
  const p = docs[0]!;
  if (p.kind !== 'Policy') throw new Error(`audit policy has kind "${String(p.kind)}", want "Policy"`);
  if (p.apiVersion !== 'audit.k8s.io/v1') throw new Error(`audit policy apiVersion "${String(p.apiVersion)}" is not supported (want audit.k8s.io/v1)`);
  if (!Array.isArray(p.rules) || p.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  p.rules.forEach((r, i) => {
    if (!LEVELS.includes(r.level)) throw new Error(`rules[${i}].level: Unsupported value: "${String(r.level)}"`);
    for (const s of r.omitStages ?? []) if (!STAGES.includes(s)) throw new Error(`rules[${i}].omitStages: Unsupported value: "${s}"`);
    if (r.nonResourceURLs?.length && (r.resources?.length || r.namespaces?.length)) {
      throw new Error(`rules[${i}].nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
    }
  });
  return p;
}

function matchResource(rule: PolicyRule, info: RequestInfo): boolean {
  const combined = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  for (const gr of rule.resources!) {
    if ((gr.group ?? '') !== info.apiGroup) continue;
    if (!gr.resources?.length) return true;
    if (gr.resourceNames?.length && !gr.resourceNames.includes(info.name)) continue;
    for (const r of gr.resources) {
      if (r === '*' || r === combined) return true;
      if (info.subresource && r.startsWith('*/') && r.slice(2) === info.subresource) return true;
      if (r.endsWith('/*') && r.slice(0, -2) === info.resource) return true;
    }
  }
  return false;
}

function ruleMatches(rule: PolicyRule, user: UserInfo | undefined, info: RequestInfo): boolean {
  if (rule.users?.length && !(user && rule.users.includes(user.username))) return false;
  if (rule.userGroups?.length && !(user && user.groups.some((g) => rule.userGroups!.includes(g)))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(info.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) {
    if (!info.isResourceRequest) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(info.namespace)) return false;
    if (rule.resources?.length && !matchResource(rule, info)) return false;
  }
  if (rule.nonResourceURLs?.length) {
    if (info.isResourceRequest) return false;
    const ok = rule.nonResourceURLs.some((u) => u === info.path || (u.endsWith('*') && info.path.startsWith(u.slice(0, -1))));
    if (!ok) return false;
  }
  return true;
}

export interface AuditDecision {
  level: Level;
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** Evaluates a policy for one request. */
export function evaluatePolicy(p: Policy, user: UserInfo | undefined, info: RequestInfo): AuditDecision {
  for (const r of p.rules) {
    if (!ruleMatches(r, user, info)) continue;
    return {
      level: r.level,
      omitStages: [...(p.omitStages ?? []), ...(r.omitStages ?? [])],
      omitManagedFields: r.omitManagedFields ?? p.omitManagedFields ?? false,
    };
  }
  return { level: 'None', omitStages: [], omitManagedFields: false };
}
