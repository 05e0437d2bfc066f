/**
 * The access reviews: SelfSubjectAccessReview (`kubectl auth can-i`),
 * SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview
 * (`kubectl auth can-i --list`), answered by the API server's own authorizer.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/pkg/registry/authorization
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import {
  type AccessReviewSpec,
  LSAR,
  SAR,
  SSAR,
  SSRR,
  validateAttributes,
  validateLocalSubjectAccessReview,
  validateRulesReviewNamespace,
  validateSubjectAccessReviewSpec,
} from '../../api/authorization/definitions.js';
import type { VirtualResource } from '../../api/authorization/virtual.js';
import type { KObject, UserInfo } from '../../api/resource.js';
import { newInvalid } from '../../apimachinery/errors.js';
import { Path } from '../../apimachinery/field-errors.js';
import type { AuthorizationAttributes } from '../apiserver.js';
import { nodeRules } from './bootstrap-policy.js';
import { nodeIdentity } from './node.js';
import type { RuleResolver } from './rbac/resolver.js';
import type { UnionAuthorizer } from './types.js';

function attributesOf(spec: AccessReviewSpec, user: UserInfo): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user,
      verb: r.verb ?? '',
      isResourceRequest: true,
      path: '',
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      namespace: r.namespace ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

function reviewResponse(body: KObject, spec: unknown, status: Record<string, unknown>): KObject {
  const meta = { ...(body.metadata ?? {}), creationTimestamp: null } as unknown as KObject['metadata'];
  return { kind: body.kind, apiVersion: body.apiVersion, metadata: meta, spec, status };
}

function decisionStatus(authorizer: UnionAuthorizer, a: AuthorizationAttributes): Record<string, unknown> {
  const d = authorizer.decide(a);
  const st: Record<string, unknown> = { allowed: d.decision === 'Allow' };
  if (d.decision === 'Deny') st.denied = true;
  if (d.reason) st.reason = d.reason;
  return st;
}

function specUser(spec: AccessReviewSpec): UserInfo {
  const u: UserInfo = { username: spec.user ?? '', groups: [...(spec.groups ?? [])] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra) u.extra = spec.extra;
  return u;
}

/** PolicyRules → the ResourceRule / NonResourceRule lists of a rules review. */
export function rulesReviewStatus(rules: readonly PolicyRule[], incomplete: boolean): Record<string, unknown> {
  const resourceRules: Record<string, unknown>[] = [];
  const nonResourceRules: Record<string, unknown>[] = [];
  for (const r of rules) {
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: [...(r.verbs ?? [])], nonResourceURLs: [...r.nonResourceURLs] });
    else {
      const rr: Record<string, unknown> = { verbs: [...(r.verbs ?? [])], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])] };
      if (r.resourceNames?.length) rr.resourceNames = [...r.resourceNames];
      resourceRules.push(rr);
    }
  }
  return { resourceRules, nonResourceRules, incomplete };
}

/** The four review resources over one authorizer and the RBAC rule resolver. */
export function accessReviews(authorizer: UnionAuthorizer, resolver: RuleResolver): VirtualResource[] {
  return [
    {
      ...SSAR,
      async create(body, { user }) {
        const spec = (body.spec ?? {}) as AccessReviewSpec;
        const errs = validateAttributes(spec, Path.root('spec'));
        if (errs.length) throw newInvalid({ group: SSAR.group, kind: SSAR.kind }, '', errs);
        return reviewResponse(body, spec, decisionStatus(authorizer, attributesOf(spec, user)));
      },
    },
    {
      ...SAR,
      async create(body) {
        const spec = (body.spec ?? {}) as AccessReviewSpec;
        const errs = validateSubjectAccessReviewSpec(spec);
        if (errs.length) throw newInvalid({ group: SAR.group, kind: SAR.kind }, '', errs);
        return reviewResponse(body, spec, decisionStatus(authorizer, attributesOf(spec, specUser(spec))));
      },
    },
    {
      ...LSAR,
      async create(body, { namespace }) {
        const spec = (body.spec ?? {}) as AccessReviewSpec;
        const errs = validateLocalSubjectAccessReview(spec, namespace);
        if (errs.length) throw newInvalid({ group: LSAR.group, kind: LSAR.kind }, '', errs);
        return reviewResponse(body, spec, decisionStatus(authorizer, attributesOf(spec, specUser(spec))));
      },
    },
    {
      ...SSRR,
      async create(body, { user }) {
        const spec = (body.spec ?? {}) as { namespace?: string };
        const errs = validateRulesReviewNamespace(spec.namespace);
        if (errs.length) throw newInvalid({ group: SSRR.group, kind: SSRR.kind }, '', errs);
        const rules: PolicyRule[] = [];
        let incomplete = false;
        if (nodeIdentity(user)) {
          rules.push(...nodeRules());
          incomplete = true;
        }
        rules.push(...resolver.rulesFor(user, spec.namespace ?? ''));
        return reviewResponse(body, spec, rulesReviewStatus(rules, incomplete));
      },
    },
  ];
}
