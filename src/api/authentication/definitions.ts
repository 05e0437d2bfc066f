/**
 * authentication.k8s.io/v1 TokenReview and SelfSubjectReview (computed, never stored),
 * and the TokenRequest kind of `serviceaccounts/token`.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/pkg/registry/authentication
 */
import type { ResourceDefinition } from '../resource.js';
import { virtualDefinition } from '../authorization/virtual.js';

const AUTHN_GROUP = 'authentication.k8s.io';
export const TOKEN_REVIEW = { group: AUTHN_GROUP, version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };
export const SELF_SUBJECT_REVIEW = { group: AUTHN_GROUP, version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false };

export function authenticationDefinitions(): ResourceDefinition[] {
  return [virtualDefinition(SELF_SUBJECT_REVIEW, 'authentication/v1#SelfSubjectReview'), virtualDefinition(TOKEN_REVIEW, 'authentication/v1#TokenReview')];
}
