/**
 * Validation pieces the admissionregistration.k8s.io/v1 kinds share: rules with
 * operations, match resources, match conditions (CEL expressions are checked for
 * presence only: k8ts has no CEL compiler), admission review versions, the webhook
 * client config (URL or Service reference).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/admissionregistration/validation/validation.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/webhook/validation.go
 */
import type { MatchCondition, MatchResources, NamedRuleWithOperations, RuleWithOperations, WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import { duplicate, type FieldError, invalid, notSupported, type Path, required, tooMany } from '../../../apimachinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, validateLabelSelector } from '../../../apimachinery/validation.js';
import { validateQualifiedName } from '../../core/v1/shared/validation.js';
import { validatePathSegmentName } from '../../core/v1/event/strategy.js';

/** sets.NewString(...).List() order */
const sorted = (xs: string[]): string[] => [...xs].sort();
export const FAILURE_POLICIES = sorted(['Ignore', 'Fail']);
export const MATCH_POLICIES = sorted(['Exact', 'Equivalent']);
const OPERATIONS = sorted(['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
const SCOPES = sorted(['Cluster', 'Namespaced', '*']);
/** AdmissionReview versions the server accepts (upstream AcceptedAdmissionReviewVersions). */
const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

const hasWildcard = (xs: readonly string[]): boolean => xs.includes('*');

/** Upstream validateResources (subresources allowed). */
function validateResources(resources: readonly string[], p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(p, ''));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((rs, i) => {
    if (rs === '') {
      errs.push(required(p.index(i), ''));
      return;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      withoutSub = rs !== '*';
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(invalid(p.index(i), rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subWithWildcardRes.has(sub)) errs.push(invalid(p.index(i), rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(p, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalid(p, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** Upstream validateRuleWithOperations (+ validateRule with subresources allowed). */
/** RuleWithOperations with the Rule fields kubernetes-types leaves out of its declaration. */
type FullRule = RuleWithOperations & { resources?: string[]; scope?: string };

export function validateRuleWithOperations(rule: RuleWithOperations, p: Path): FieldError[] {
  const r = rule as FullRule;
  const errs: FieldError[] = [];
  const ops = r.operations ?? [];
  if (ops.length === 0) errs.push(required(p.child('operations'), ''));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(invalid(p.child('operations'), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((o, i) => {
    if (!OPERATIONS.includes(o)) errs.push(notSupported(p.child('operations').index(i), o, OPERATIONS));
  });
  const groups = r.apiGroups ?? [];
  if (groups.length === 0) errs.push(required(p.child('apiGroups'), ''));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(p.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  const versions = r.apiVersions ?? [];
  if (versions.length === 0) errs.push(required(p.child('apiVersions'), ''));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(invalid(p.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(p.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(r.resources ?? [], p.child('resources')));
  if (r.scope !== undefined && r.scope !== null && !SCOPES.includes(r.scope)) errs.push(notSupported(p.child('scope'), r.scope, SCOPES));
  return errs;
}

/** Upstream validateNamedRuleWithOperations. */
function validateNamedRule(n: NamedRuleWithOperations, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (n.resourceNames ?? []).forEach((name, i) => {
    for (const m of validatePathSegmentName(name, false)) errs.push(invalid(p.child('resourceNames').index(i), name, m));
    if (seen.has(name)) errs.push(duplicate(p.child('resourceNames').index(i), name));
    seen.add(name);
  });
  errs.push(...validateRuleWithOperations(n, p));
  return errs;
}

/** Upstream validateMatchResources. */
export function validateMatchResources(mc: MatchResources | undefined, p: Path): FieldError[] {
  if (!mc) return [];
  const errs: FieldError[] = [];
  if (mc.matchPolicy === undefined || mc.matchPolicy === null) errs.push(required(p.child('matchPolicy'), ''));
  else if (!MATCH_POLICIES.includes(mc.matchPolicy)) errs.push(notSupported(p.child('matchPolicy'), mc.matchPolicy, MATCH_POLICIES));
  if (!mc.namespaceSelector) errs.push(required(p.child('namespaceSelector'), ''));
  else errs.push(...validateLabelSelector(mc.namespaceSelector, p.child('namespaceSelector')));
  if (!mc.objectSelector) errs.push(required(p.child('objectSelector'), ''));
  else errs.push(...validateLabelSelector(mc.objectSelector, p.child('objectSelector')));
  (mc.resourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRule(r, p.child('resourceRules').index(i))));
  (mc.excludeResourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRule(r, p.child('excludeResourceRules').index(i))));
  return errs;
}

/** Upstream validateMatchConditions (names and presence of expressions; no CEL compilation). */
export function validateMatchConditions(conds: readonly MatchCondition[] | undefined, p: Path): FieldError[] {
  const list = conds ?? [];
  const errs: FieldError[] = [];
  if (list.length > 64) errs.push(tooMany(p, list.length, 64));
  const names = new Set<string>();
  list.forEach((c, i) => {
    const ip = p.index(i);
    if ((c.expression ?? '').trim().length === 0) errs.push(required(ip.child('expression'), ''));
    if (!c.name) errs.push(required(ip.child('name'), ''));
    else errs.push(...validateQualifiedName(c.name, ip.child('name')));
    if (c.name) {
      if (names.has(c.name)) errs.push(duplicate(ip.child('name'), c.name));
      else names.add(c.name);
    }
  });
  return errs;
}

/** Upstream validateAdmissionReviewVersions (a recognized version required, as on create). */
export function validateAdmissionReviewVersions(versions: readonly string[] | undefined, requireRecognized: boolean, p: Path): FieldError[] {
  const list = versions ?? [];
  if (list.length < 1) return [required(p, `must specify one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(p.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(p.index(i), v, m));
    if (ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalid(p, list, `must include at least one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

const URL_FORM = '; desired format: https://host[/path]';

/** Upstream webhook.ValidateWebhookURL with forceHttps. */
function validateWebhookURL(raw: string, p: Path): FieldError[] {
  let u: { protocol: string; host: string; username: string; password: string; hash: string; search: string };
  try {
    u = new URL(raw);
  } catch {
    // what Go's url.Parse makes of a relative reference: no scheme, no host
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw)?.[1] ?? '';
    u = { protocol: scheme ? `${scheme}:` : '', host: '', username: '', password: '', hash: '', search: '' };
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(invalid(p, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host.length === 0) errs.push(invalid(p, u.host, `host must be specified${URL_FORM}`));
  if (u.username || u.password) errs.push(invalid(p, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(invalid(p, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(invalid(p, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/** Upstream webhook.ValidateWebhookService. */
function validateWebhookService(s: NonNullable<WebhookClientConfig['service']>, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(required(p.child('name'), 'service name is required'));
  if (!s.namespace) errs.push(required(p.child('namespace'), 'service namespace is required'));
  const port = s.port ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(invalid(p.child('port'), port, `port is not valid: ${portErrs.join(', ')}`));
  const path = s.path;
  if (path === undefined || path === null || path === '/' || path.length === 0) return errs;
  if (path === '//') return [...errs, invalid(p.child('path'), path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(invalid(p.child('path'), path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(p.child('path'), path, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of isDNS1123Subdomain(step)) errs.push(invalid(p.child('path'), path, `segment[${i}]: ${m}`));
  });
  return errs;
}

/** Exactly one of url or service (upstream's webhook clientConfig switch). */
export function validateClientConfig(cc: WebhookClientConfig | undefined, p: Path): FieldError[] {
  const c = cc ?? {};
  const hasURL = c.url !== undefined && c.url !== null;
  const hasSvc = c.service !== undefined && c.service !== null;
  if (hasURL === hasSvc) return [required(p, 'exactly one of url or service is required')];
  if (hasURL) return validateWebhookURL(c.url!, p.child('url'));
  return validateWebhookService(c.service!, p.child('service'));
}
