/**
 * The AdmissionReview a webhook receives and the checks on the one it returns, as
 * upstream: admission.k8s.io/v1 when the webhook's `admissionReviewVersions` lists v1
 * before v1beta1 (the first known version in its list wins), v1beta1 otherwise.
 *
 * Request members in Go's order: uid, kind, resource, subResource, requestKind,
 * requestResource, requestSubResource, name, namespace, operation, userInfo, object,
 * oldObject, dryRun, options (`object`, `oldObject`, `options` are `null` when absent).
 * `kind`/`resource` are the version the webhook's rule matched (matchPolicy Equivalent may
 * pick another version of the resource), `requestKind`/`requestResource` the request's.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/request/admissionreview.go
 * @see https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request
 */
import type { GroupVersionResource, Obj, UserInfo } from '../../../api/resource.js';
import type { Status } from '../../../apimachinery/errors.js';

export type GroupVersionKind = { group: string; version: string; kind: string };

/** What one webhook call is about. */
export interface ReviewInput {
  uid: string;
  /** the version the webhook is called with */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  /** the request's own */
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource: string;
  name: string;
  namespace: string;
  operation: string;
  user: UserInfo;
  object: Obj | undefined;
  oldObject: Obj | undefined;
  dryRun: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions (meta.k8s.io/v1) */
  options: Record<string, unknown> | undefined;
}

/** The AdmissionReview version to send: the first of `admissionReviewVersions` k8ts speaks. */
export function reviewVersion(versions: readonly string[] | undefined): 'v1' | 'v1beta1' | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

/** The AdmissionReview request body (upstream CreateV1AdmissionReview / CreateV1beta1AdmissionReview). */
export function admissionReview(version: 'v1' | 'v1beta1', r: ReviewInput): Record<string, unknown> {
  const gvk = (k: GroupVersionKind) => ({ group: k.group, version: k.version, kind: k.kind });
  const gvr = (k: GroupVersionResource) => ({ group: k.group, version: k.version, resource: k.resource });
  const userInfo: Record<string, unknown> = {};
  if (r.user.username) userInfo.username = r.user.username;
  if (r.user.uid) userInfo.uid = r.user.uid;
  if (r.user.groups?.length) userInfo.groups = r.user.groups;
  if (r.user.extra && Object.keys(r.user.extra).length) userInfo.extra = r.user.extra;
  const request: Record<string, unknown> = { uid: r.uid, kind: gvk(r.kind), resource: gvr(r.resource) };
  if (r.subresource) request.subResource = r.subresource;
  request.requestKind = gvk(r.requestKind);
  request.requestResource = gvr(r.requestResource);
  if (r.requestSubResource) request.requestSubResource = r.requestSubResource;
  if (r.name) request.name = r.name;
  if (r.namespace) request.namespace = r.namespace;
  request.operation = r.operation;
  request.userInfo = userInfo;
  request.object = r.object ?? null;
  request.oldObject = r.oldObject ?? null;
  request.dryRun = r.dryRun;
  request.options = r.options ?? null;
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** What the webhook answered (upstream AdmissionResponse after VerifyAdmissionResponse). */
export interface VerifiedResponse {
  allowed: boolean;
  /** the JSON patch, decoded from base64 ('' when none) */
  patch: string;
  patchType: string;
  result: Partial<Status> | undefined;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/**
 * Upstream VerifyAdmissionResponse.
 * @throws Error with upstream's text (`webhook response was absent`, `expected
 *   response.uid="…", got "…"`, `validating webhook may not return response.patch`, …)
 */
export function verifyAdmissionResponse(version: 'v1' | 'v1beta1', uid: string, mutating: boolean, review: Record<string, unknown>): VerifiedResponse {
  const resp = review.response as Record<string, unknown> | undefined | null;
  if (!resp || typeof resp !== 'object') throw new Error('webhook response was absent');
  const rawPatch = typeof resp.patch === 'string' ? resp.patch : '';
  const patchType = resp.patchType as string | undefined | null;
  let patch = '';
  let pt = '';
  if (version === 'v1') {
    const got = String(resp.uid ?? '');
    if (got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
    const apiVersion = String(review.apiVersion ?? '');
    const kind = String(review.kind ?? '');
    if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${apiVersion}, Kind=${kind}`);
    }
    if (mutating) {
      if (rawPatch && (patchType === undefined || patchType === null)) throw new Error('webhook returned response.patch but not response.patchType');
      if (!rawPatch && patchType !== undefined && patchType !== null) throw new Error('webhook returned response.patchType but not response.patch');
      patch = rawPatch;
      if (patchType !== undefined && patchType !== null) {
        if (patchType === '') throw new Error(`webhook returned invalid response.patchType of ""`);
        pt = patchType;
      }
    } else {
      if (rawPatch) throw new Error('validating webhook may not return response.patch');
      if (patchType !== undefined && patchType !== null) throw new Error('validating webhook may not return response.patchType');
    }
  } else if (mutating) {
    // v1beta1 never checked uid, kind or patchType: a patch is a JSON patch
    patch = rawPatch;
    if (rawPatch) pt = 'JSONPatch';
  }
  return {
    allowed: resp.allowed === true,
    patch: patch ? Buffer.from(patch, 'base64').toString('utf8') : '',
    patchType: pt,
    result: (resp.status ?? undefined) as Partial<Status> | undefined,
    warnings: Array.isArray(resp.warnings) ? resp.warnings.map(String) : [],
    auditAnnotations: resp.auditAnnotations && typeof resp.auditAnnotations === 'object' ? (resp.auditAnnotations as Record<string, string>) : {},
  };
}
