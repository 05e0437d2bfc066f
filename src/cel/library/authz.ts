/**
 * The Kubernetes CEL authorizer library (`authz` and `authzSelectors`): the
 * `authorizer` variable of admission expressions and its builders
 * `authorizer.path(p)`, `authorizer.group(g).resource(r)` with `.subresource(s)`,
 * `.namespace(ns)`, `.name(n)`, `.fieldSelector(s)`, `.labelSelector(s)`,
 * `.check(verb)` → a Decision with `allowed()`, `reason()`, `errored()`, `error()`;
 * `authorizer.serviceAccount(ns, name)` (checks as that service account) and
 * `authorizer.requestResource` (a ResourceCheck for the request's own resource).
 *
 * The library is independent of the API server: an {@link CelAuthorizer} is made with a
 * synchronous {@link AuthzDecide} function (the API server passes its authorizer chain).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/authz.go
 */
import type { Environment } from '@marcbachmann/cel-js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/validation.js';
import { chargeCost } from '../cost.js';
import { celError } from '../errors.js';

/** upstream library cost: an authorization check costs 350,000 (two per expression within the per-call limit). */
export const AUTHZ_CHECK_COST = 350_000;

/** The user a check is made for (upstream user.Info). */
export interface AuthzUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The attributes of one check (upstream authorizer.AttributesRecord). */
export interface AuthzAttributes {
  user: AuthzUser;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector?: string;
  labelSelector?: string;
}

/** A decision (upstream: Decision, reason, error). */
export interface AuthzDecision {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason: string;
  /** the authorizer's error, when it failed */
  error?: string;
}

/** Decides one check synchronously. */
export type AuthzDecide = (a: AuthzAttributes) => AuthzDecision;

/** The request's resource, for `authorizer.requestResource`. */
export interface AuthzRequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** A CEL `kubernetes.authorization.Decision`. */
export class CelDecision {
  constructor(readonly d: AuthzDecision) {}
}

/** A CEL `kubernetes.authorization.PathCheck`. */
export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

/** A CEL `kubernetes.authorization.GroupCheck`. */
export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

/** A CEL `kubernetes.authorization.ResourceCheck` (immutable; builders return copies). */
export class CelResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
    readonly fieldSelector = '',
    readonly labelSelector = '',
  ) {}
  with(patch: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name' | 'fieldSelector' | 'labelSelector'>>): CelResourceCheck {
    const v = { ...this, ...patch };
    return new CelResourceCheck(this.authorizer, this.group, this.resource, v.subresource, v.namespace, v.name, v.fieldSelector, v.labelSelector);
  }
  check(verb: string): CelDecision {
    chargeCost(AUTHZ_CHECK_COST);
    const a: AuthzAttributes = {
      user: this.authorizer.user,
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: this.group,
      apiVersion: '*',
      resource: this.resource,
      subresource: this.subresource,
      namespace: this.namespace,
      name: this.name,
      ...(this.fieldSelector ? { fieldSelector: this.fieldSelector } : {}),
      ...(this.labelSelector ? { labelSelector: this.labelSelector } : {}),
    };
    return new CelDecision(this.authorizer.decide(a));
  }
}

/** A CEL `kubernetes.authorization.Authorizer`: checks as `user` with `decide`. */
export class CelAuthorizer {
  /** `authorizer.requestResource` (set for admission requests) */
  readonly requestResource?: CelResourceCheck;
  constructor(
    readonly user: AuthzUser,
    readonly decide: AuthzDecide,
    request?: AuthzRequestResource,
  ) {
    if (request) this.requestResource = new CelResourceCheck(this, request.group, request.resource, request.subresource, request.namespace, request.name);
  }
}

/** upstream serviceaccount.ServiceAccountInfo.UserInfo. */
function serviceAccountUser(namespace: string, name: string): AuthzUser {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

const A = 'kubernetes.authorization.Authorizer';
const P = 'kubernetes.authorization.PathCheck';
const G = 'kubernetes.authorization.GroupCheck';
const R = 'kubernetes.authorization.ResourceCheck';
const D = 'kubernetes.authorization.Decision';

/** The CEL type name of the `authorizer` variable. */
export const AUTHORIZER_TYPE = A;

/** Registers the authorizer library's types and functions on `env`. */
export function registerAuthz(env: Environment): void {
  env
    .registerType(D, CelDecision)
    .registerType(P, CelPathCheck)
    .registerType(G, CelGroupCheck)
    .registerType(R, CelResourceCheck)
    .registerType(A, { ctor: CelAuthorizer, fields: { requestResource: R } } as never)
    .registerFunction(`${A}.path(string): ${P}`, (a: CelAuthorizer, p: string) => {
      if (p.trim() === '') throw celError('path must not be empty');
      return new CelPathCheck(a, p);
    })
    .registerFunction(`${A}.group(string): ${G}`, (a: CelAuthorizer, g: string) => new CelGroupCheck(a, g))
    .registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: CelAuthorizer, ns: string, name: string) => {
      // upstream ValidateServiceAccountName / ValidateNamespaceName (prefix false)
      if (isDNS1123Subdomain(name).length > 0) throw celError('Invalid service account name');
      if (isDNS1123Label(ns).length > 0) throw celError('Invalid service account namespace');
      return new CelAuthorizer(serviceAccountUser(ns, name), a.decide);
    })
    .registerFunction(`${G}.resource(string): ${R}`, (g: CelGroupCheck, r: string) => {
      if (r.trim() === '') throw celError('resource must not be empty');
      return new CelResourceCheck(g.authorizer, g.group, r);
    })
    .registerFunction(`${R}.subresource(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ subresource: s }))
    .registerFunction(`${R}.namespace(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ namespace: s }))
    .registerFunction(`${R}.name(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ name: s }))
    .registerFunction(`${R}.fieldSelector(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ fieldSelector: s }))
    .registerFunction(`${R}.labelSelector(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ labelSelector: s }))
    .registerFunction(`${R}.check(string): ${D}`, (r: CelResourceCheck, verb: string) => r.check(verb))
    .registerFunction(`${P}.check(string): ${D}`, (p: CelPathCheck, verb: string) => {
      chargeCost(AUTHZ_CHECK_COST);
      const a: AuthzAttributes = {
        user: p.authorizer.user,
        verb,
        isResourceRequest: false,
        path: p.path,
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        namespace: '',
        name: '',
      };
      return new CelDecision(p.authorizer.decide(a));
    })
    .registerFunction(`${D}.allowed(): bool`, (d: CelDecision) => d.d.decision === 'Allow')
    .registerFunction(`${D}.reason(): string`, (d: CelDecision) => d.d.reason)
    .registerFunction(`${D}.errored(): bool`, (d: CelDecision) => d.d.error !== undefined)
    .registerFunction(`${D}.error(): string`, (d: CelDecision) => d.d.error ?? '');
}
