/**
 * authorization.k8s.io/v1 SubjectAccessReview, SelfSubjectAccessReview,
 * LocalSubjectAccessReview, SelfSubjectRulesReview: request validation and the
 * definitions (computed, never stored).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/authorization/validation/validation.go
 */
import type { NonResourceAttributes, ResourceAttributes } from 'kubernetes-types/authorization/v1.js';
import { type FieldError, invalid, Path, required } from '../../apimachinery/field-errors.js';
import type { ResourceDefinition } from '../resource.js';
import { virtualDefinition } from './virtual.js';

const AUTHZ_GROUP = 'authorization.k8s.io';

export const SAR = { group: AUTHZ_GROUP, version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
export const SSAR = { group: AUTHZ_GROUP, version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false };
export const LSAR = { group: AUTHZ_GROUP, version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true };
export const SSRR = { group: AUTHZ_GROUP, version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false };

export interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

function goStruct(v: unknown): string {
  if (v === undefined) return 'nil';
  return `&${JSON.stringify(v)}`;
}

/** Upstream ValidateSelfSubjectAccessReviewSpec / the shared part of the others. */
export function validateAttributes(spec: AccessReviewSpec, p: Path): FieldError[] {
  const r = spec.resourceAttributes;
  const n = spec.nonResourceAttributes;
  if (r && n) return [invalid(p.child('nonResourceAttributes'), goStruct(n), 'cannot be specified in combination with resourceAttributes')];
  if (!r && !n) return [invalid(p.child('resourceAttributes'), 'nil', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

export function validateSubjectAccessReviewSpec(spec: AccessReviewSpec): FieldError[] {
  const p = Path.root('spec');
  const errs = validateAttributes(spec, p);
  if (!spec.user && !spec.groups?.length) errs.push(invalid('spec.user,spec.groups', spec.user ?? '', 'at least one of user or group must be specified'));
  return errs;
}

export function validateLocalSubjectAccessReview(spec: AccessReviewSpec, namespace: string): FieldError[] {
  const errs = validateSubjectAccessReviewSpec(spec);
  const ns = spec.resourceAttributes?.namespace ?? '';
  if (spec.resourceAttributes && ns !== namespace) errs.push(invalid('spec.resourceAttributes.namespace', ns, 'must match metadata.namespace'));
  if (spec.nonResourceAttributes) errs.push(invalid('spec.nonResourceAttributes', goStruct(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  return errs;
}

export function validateRulesReviewNamespace(ns: string | undefined): FieldError[] {
  return ns === undefined ? [required(Path.root('spec').child('namespace'), '')] : [];
}

export function authorizationDefinitions(): ResourceDefinition[] {
  return [
    virtualDefinition(LSAR, 'authorization/v1#LocalSubjectAccessReview'),
    virtualDefinition(SSAR, 'authorization/v1#SelfSubjectAccessReview'),
    virtualDefinition(SSRR, 'authorization/v1#SelfSubjectRulesReview'),
    virtualDefinition(SAR, 'authorization/v1#SubjectAccessReview'),
  ];
}
