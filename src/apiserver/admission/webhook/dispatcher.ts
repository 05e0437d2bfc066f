/**
 * What the mutating and validating webhook plugins share (upstream generic.Webhook and the
 * dispatchers' callHook): deciding whether a webhook is called for a request
 * (namespaceSelector → objectSelector → rules, with matchPolicy Equivalent trying the
 * equivalent resources; matchConditions through src/cel), and calling it (sideEffects against dryRun,
 * AdmissionReview version, the POST, response checks, audit annotations, warnings,
 * denial).
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/generic/webhook.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/predicates/namespace/matcher.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/predicates/object/matcher.go
 */
import { randomUUID } from 'node:crypto';
import type { GroupVersionResource, ObjectLookup, Obj } from '../../../api/resource.js';
import { newBadRequest, newForbidden, newInternalError, newNotFound, newServiceUnavailable, type StatusError } from '../../../apimachinery/errors.js';
import { addAuditAnnotation } from '../../audit/context.js';
import type { AdmissionAttributes } from '../types.js';
import { CallFailure, type HookClientConfig, postJSON } from './client.js';
import type { EquivalentResources } from './equivalence.js';
import { CallingWebhookError, newDryRunUnsupported, toStatusErr, WebhookRejection } from './errors.js';
import { admissionReview, type GroupVersionKind, reviewVersion, type VerifiedResponse, verifyAdmissionResponse } from './review.js';
import { evaluateMatchConditions } from './match-conditions.js';
import { ruleMatches, type RuleAttributes } from './rules.js';
import { resolveServiceEndpoint, storeServiceLookup } from '../../util/service-resolver.js';
import type { CredentialResolver } from './authentication-info.js';
import type { ParsedSelector, WebhookAccessor } from './source.js';
import type { WebhookMetrics } from './metrics.js';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

/** What the plugins read besides the request: objects, equivalent resources, metrics. */
export interface DispatchContext {
  /** objects of the cluster (namespaces for namespaceSelector, Services and EndpointSlices) */
  lookup: ObjectLookup;
  equivalents?: EquivalentResources;
  metrics: WebhookMetrics;
  /** client credentials per webhook host of each plugin (`--admission-control-config-file`) */
  credentials?: { mutating?: CredentialResolver; validating?: CredentialResolver };
}

/** A webhook to call and the version of the resource it is called with. */
export interface Invocation {
  accessor: WebhookAccessor;
  resource: GroupVersionResource;
  subresource: string;
  kind: GroupVersionKind;
}

/** The request as the webhook sees it: the object(s) in the invocation's version. */
export interface VersionedAttributes {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  object: Obj | undefined;
  oldObject: Obj | undefined;
  /** a mutating webhook changed `object` */
  dirty: boolean;
}

const isNamespaces = (r: GroupVersionResource): boolean => r.group === '' && r.resource === 'namespaces';

/**
 * The request's namespace as upstream's attributes give it: a namespace's own name for
 * requests on an existing namespace (the URL `/api/v1/namespaces/<name>` names it).
 */
export function requestNamespace(a: AdmissionAttributes): string {
  return isNamespaces(a.resource) && a.operation !== 'CREATE' ? a.name : a.namespace;
}

function selectorOrError(p: ParsedSelector): { selector?: import('../../../apimachinery/labels.js').Selector; error?: StatusError } {
  return 'error' in p ? { error: newInternalError(p.error) } : { selector: p.selector };
}

/** Upstream MatchNamespaceSelector: { matches } or the error to return if the rules match. */
async function matchNamespace(h: WebhookAccessor, a: AdmissionAttributes, lookup: ObjectLookup): Promise<{ matches: boolean; error?: StatusError }> {
  const ns = requestNamespace(a);
  // cluster-scoped resources other than namespaces are never exempted
  if (!ns && !isNamespaces(a.resource)) return { matches: true };
  const { selector, error } = selectorOrError(h.namespaceSelector);
  if (error) return { matches: false, error };
  if (selector!.empty()) return { matches: true };
  let labels: Record<string, string> | undefined;
  if (isNamespaces(a.resource) && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
    labels = a.object?.metadata.labels as Record<string, string> | undefined;
  } else {
    const nsObj = await lookup.get(NAMESPACES, '', ns);
    if (!nsObj) return { matches: false, error: newNotFound({ group: '', resource: 'namespaces' }, ns) };
    labels = nsObj.metadata?.labels as Record<string, string> | undefined;
  }
  return { matches: selector!.matches(labels ?? {}) };
}

/** Upstream MatchObjectSelector: the new or the old object's labels. */
function matchObject(h: WebhookAccessor, object: Obj | undefined, oldObject: Obj | undefined): { matches: boolean; error?: StatusError } {
  const { selector, error } = selectorOrError(h.objectSelector);
  if (error) return { matches: false, error };
  if (selector!.empty()) return { matches: true };
  const m = (o: Obj | undefined): boolean => o !== undefined && selector!.matches((o.metadata?.labels ?? {}) as Record<string, string>);
  return { matches: m(object) || m(oldObject) };
}

/**
 * Upstream ShouldCallHook: the invocation, undefined when the webhook does not apply, or
 * a thrown StatusError (a selector that does not parse, a missing namespace, match
 * conditions that cannot be evaluated) when its rules match.
 * @param object the object as the previous webhooks left it (mutating) or the request's
 */
export async function shouldCallHook(
  h: WebhookAccessor,
  a: AdmissionAttributes,
  object: Obj | undefined,
  ctx: DispatchContext,
  lookup: ObjectLookup,
): Promise<Invocation | undefined> {
  const ns = await matchNamespace(h, a, lookup);
  if (!ns.matches && !ns.error) return undefined;
  const obj = matchObject(h, object, a.oldObject);
  if (!obj.matches && !obj.error) return undefined;

  const ra: RuleAttributes = { operation: a.operation, resource: a.resource, subresource: a.subresource, namespace: requestNamespace(a) };
  const rules = h.hook.rules ?? [];
  let inv: Invocation | undefined;
  if (rules.some((r) => ruleMatches(r, ra))) inv = { accessor: h, resource: a.resource, subresource: a.subresource, kind: a.kind };
  if (!inv && (h.hook.matchPolicy ?? 'Equivalent') === 'Equivalent' && ctx.equivalents) {
    const eqs = ctx.equivalents.equivalentsFor(a.resource, a.subresource);
    // earlier rules first
    outer: for (const r of rules) {
      for (const e of eqs) {
        const same = e.resource.group === a.resource.group && e.resource.version === a.resource.version && e.resource.resource === a.resource.resource;
        if (same) continue;
        if (ruleMatches(r, { ...ra, resource: e.resource })) {
          inv = { accessor: h, resource: e.resource, subresource: a.subresource, kind: e.kind };
          break outer;
        }
      }
    }
  }
  if (!inv) return undefined;
  if (ns.error) throw ns.error;
  if (obj.error) throw obj.error;
  if ((h.hook.matchConditions ?? []).length) {
    const r = evaluateMatchConditions(h.matchConditions(), conditionActivation(inv, a, object, ctx), h.hook.failurePolicy);
    if (r.error !== undefined) throw newForbidden(a.resource, a.name, r.error);
    if (!r.matches) return undefined;
  }
  return inv;
}

/** `object`, `oldObject` and `request` for matchConditions, in the invocation's version (upstream CreateAdmissionRequest). */
function conditionActivation(inv: Invocation, a: AdmissionAttributes, object: Obj | undefined, ctx: DispatchContext): Record<string, unknown> {
  const same = inv.resource.group === a.resource.group && inv.resource.version === a.resource.version;
  const conv = (o: Obj | undefined): Obj | undefined => (o && !same && ctx.equivalents ? ctx.equivalents.convert(o, a.resource, inv.resource) : o);
  const review = admissionReview('v1', {
    uid: '',
    kind: inv.kind,
    resource: inv.resource,
    subresource: inv.subresource,
    requestKind: a.kind,
    requestResource: a.resource,
    requestSubResource: a.subresource,
    name: a.name,
    namespace: requestNamespace(a),
    operation: a.operation,
    user: a.user,
    object: undefined,
    oldObject: undefined,
    dryRun: a.dryRun,
    options: a.options,
  });
  const request = review.request as Record<string, unknown>;
  delete request.uid;
  delete request.object;
  delete request.oldObject;
  return { object: conv(object) ?? null, oldObject: conv(a.oldObject) ?? null, request };
}

/**
 * Calls one webhook with the versioned request (upstream callHook / callAttrMutatingHook
 * up to the patch): records its audit annotations and warnings and returns the verified
 * answer when it allowed the request.
 * @throws CallingWebhookError (could not call it / invalid answer), WebhookRejection
 *   (allowed: false), StatusError 400 for a dry run it does not support
 */
export async function callHook(inv: Invocation, v: VersionedAttributes, a: AdmissionAttributes, ctx: DispatchContext, mutating: boolean): Promise<VerifiedResponse> {
  const h = inv.accessor.hook;
  const name = h.name;
  if (a.dryRun) {
    if (h.sideEffects === undefined || h.sideEffects === null) throw new CallingWebhookError(name, 'Webhook SideEffects is nil', newBadRequest('Webhook SideEffects is nil'));
    if (h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') throw newDryRunUnsupported(name);
  }
  const version = reviewVersion(h.admissionReviewVersions);
  if (!version) {
    throw new CallingWebhookError(
      name,
      'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
      newBadRequest('error creating admission objects'),
    );
  }
  const uid = randomUUID();
  const body = admissionReview(version, {
    uid,
    kind: inv.kind,
    resource: inv.resource,
    subresource: inv.subresource,
    requestKind: a.kind,
    requestResource: a.resource,
    requestSubResource: a.subresource,
    name: a.name,
    namespace: requestNamespace(a),
    operation: a.operation,
    user: a.user,
    object: v.object,
    oldObject: v.oldObject,
    dryRun: a.dryRun,
    options: a.options,
  });
  let answer: Record<string, unknown>;
  try {
    answer = await postJSON(h.clientConfig as HookClientConfig, JSON.stringify(body), {
      timeoutSeconds: h.timeoutSeconds ?? 10,
      resolve: (ns, svc, port) => resolveServiceEndpoint(storeServiceLookup(ctx.lookup), ns, svc, port),
      credentials: mutating ? ctx.credentials?.mutating : ctx.credentials?.validating,
    });
  } catch (e) {
    if (e instanceof CallFailure) throw new CallingWebhookError(name, `failed to call webhook: ${e.message}`, e.status);
    throw e;
  } finally {
    // the pod creation trace: each webhook's call is a step of its own
    a.trace?.mark(mutating ? 'MutatingAdmission' : 'ValidatingAdmission', `webhook ${name}`);
  }
  let verified: VerifiedResponse;
  try {
    verified = verifyAdmissionResponse(version, uid, mutating, answer);
  } catch (e) {
    throw new CallingWebhookError(name, `received invalid webhook response: ${(e as Error).message}`, newServiceUnavailable('error validating webhook response'));
  }
  for (const [k, val] of Object.entries(verified.auditAnnotations)) addAuditAnnotation(`${name}/${k}`, String(val));
  a.warnings.push(...verified.warnings);
  if (!verified.allowed) throw new WebhookRejection(toStatusErr(name, verified.result));
  return verified;
}

/** The code upstream's metrics record for a failed call, and the kind of failure. */
export function outcomeOf(e: unknown): { errorType: 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error'; code: number } {
  if (e instanceof CallingWebhookError) return { errorType: 'calling_webhook_error', code: e.status.code };
  if (e instanceof WebhookRejection) return { errorType: 'no_error', code: e.status.code };
  return { errorType: 'apiserver_internal_error', code: 0 };
}
