/**
 * metav1.Status errors: one `StatusError` class carrying a Status object, and
 * factories that build the same code/reason/message upstream's
 * k8s.io/apimachinery/pkg/api/errors builds.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/api/errors/errors.go
 * @see https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/status/
 */
import { type FieldError, fieldErrorBody, aggregateFieldErrors } from './field-errors.js';

/** metav1.StatusReason values used by the API server. */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable';

/** metav1.StatusCause */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.StatusDetails */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status as it goes on the wire (kind "Status", apiVersion "v1"). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** A group + resource (e.g. `{group:'apps', resource:'deployments'}`), printed as upstream's GroupResource.String(). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A group + kind (e.g. `{group:'', kind:'Pod'}`), printed as upstream's GroupKind.String(). */
export interface GroupKind {
  group: string;
  kind: string;
}

/** "pods" or "deployments.apps" */
export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** "Pod" or "Deployment.apps" */
export function groupKindString(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/**
 * The one error type that crosses component boundaries. `status` is the exact
 * metav1.Status the API server writes to the client.
 */
export class StatusError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message ?? status.reason ?? 'unknown error');
    this.name = 'StatusError';
    this.status = status;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason {
    return this.status.reason ?? '';
  }
}

/** Builds a failure Status. */
export function failureStatus(code: number, reason: StatusReason, message: string, details?: StatusDetails): Status {
  // members in metav1.Status's Go order: …, message, reason, details, code
  return details
    ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code }
    : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** A Success Status (used e.g. by DELETE of collections and exec). */
export function successStatus(details?: StatusDetails): Status {
  return details
    ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 }
    : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
}

const STATUS_DETAILS_FIELDS = ['name', 'group', 'kind', 'uid', 'causes', 'retryAfterSeconds'] as const;

/**
 * A Status as Go's encoding/json writes metav1.Status: members in struct order (kind,
 * apiVersion, metadata, status, message, reason, details, code; details and causes in
 * theirs) and the `omitempty` members left out when empty (message, reason, code 0).
 * @see https://github.com/kubernetes/apimachinery/blob/v0.32.0/pkg/apis/meta/v1/types.go (Status, StatusDetails, StatusCause)
 */
export function statusInOrder(s: Status): Status {
  const out: Record<string, unknown> = { kind: s.kind ?? 'Status', apiVersion: s.apiVersion ?? 'v1', metadata: s.metadata ?? {} };
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  const d = s.details as (StatusDetails & Record<string, unknown>) | undefined;
  if (d) {
    const details: Record<string, unknown> = {};
    for (const f of STATUS_DETAILS_FIELDS) {
      const v = d[f];
      if (v === undefined || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
      details[f] = f === 'causes' && Array.isArray(v) ? v.map(causeInOrder) : v;
    }
    for (const [k, v] of Object.entries(d)) if (!(k in details) && v !== undefined && !(STATUS_DETAILS_FIELDS as readonly string[]).includes(k)) details[k] = v;
    out.details = details;
  }
  if (s.code) out.code = s.code;
  return out as unknown as Status;
}

function causeInOrder(c: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (c.reason) out.reason = c.reason;
  if (c.message) out.message = c.message;
  if (c.field) out.field = c.field;
  return out;
}

/** Is `e` a StatusError with the given reason? */
export function isReason(e: unknown, reason: StatusReason): boolean {
  return e instanceof StatusError && e.reason === reason;
}
export const isNotFound = (e: unknown): boolean => isReason(e, 'NotFound');
export const isAlreadyExists = (e: unknown): boolean => isReason(e, 'AlreadyExists');
export const isConflict = (e: unknown): boolean => isReason(e, 'Conflict');
export const isInvalid = (e: unknown): boolean => isReason(e, 'Invalid');
export const isGone = (e: unknown): boolean => isReason(e, 'Gone') || isReason(e, 'Expired');
export const isForbidden = (e: unknown): boolean => isReason(e, 'Forbidden');

/** 404 `pods "x" not found` */
export function newNotFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    failureStatus(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, {
      name,
      ...(gr.group ? { group: gr.group } : {}),
      kind: gr.resource,
    }),
  );
}

/** 409 `pods "x" already exists` */
export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    failureStatus(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, {
      name,
      ...(gr.group ? { group: gr.group } : {}),
      kind: gr.resource,
    }),
  );
}

/** The message upstream's storage layer gives for a failed resourceVersion precondition. */
export const OptimisticLockErrorMsg = 'the object has been modified; please apply your changes to the latest version and try again';

/** 409 `Operation cannot be fulfilled on pods "x": <reason>` */
export function newConflict(gr: GroupResource, name: string, reason: string = OptimisticLockErrorMsg): StatusError {
  return new StatusError(
    failureStatus(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${reason}`, {
      name,
      ...(gr.group ? { group: gr.group } : {}),
      kind: gr.resource,
    }),
  );
}

/**
 * 422 `Pod "x" is invalid: [spec.containers[0].image: Required value, …]` with one
 * cause per field error (type FieldValueRequired…, message = the error body, field path).
 */
export function newInvalid(gk: GroupKind, name: string, errs: FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const agg = aggregateFieldErrors(errs);
  const message = agg ? `${groupKindString(gk)} "${name}" is invalid: ${agg}` : `${groupKindString(gk)} "${name}" is invalid`;
  return new StatusError(
    failureStatus(422, 'Invalid', message, {
      name,
      ...(gk.group ? { group: gk.group } : {}),
      kind: gk.kind,
      causes,
    }),
  );
}

/** 400 with the message as given. */
export function newBadRequest(message: string): StatusError {
  return new StatusError(failureStatus(400, 'BadRequest', message));
}

/** 403 `pods "x" is forbidden: <reason>` (name and resource optional as upstream). */
export function newForbidden(gr: GroupResource | undefined, name: string, reason: string): StatusError {
  let message: string;
  if (!gr || (!gr.group && !gr.resource)) message = `forbidden: ${reason}`;
  else if (!name) message = `${groupResourceString(gr)} is forbidden: ${reason}`;
  else message = `${groupResourceString(gr)} "${name}" is forbidden: ${reason}`;
  return new StatusError(
    failureStatus(403, 'Forbidden', message, {
      ...(name ? { name } : {}),
      ...(gr?.group ? { group: gr.group } : {}),
      ...(gr?.resource ? { kind: gr.resource } : {}),
    }),
  );
}

/** 401 Unauthorized */
export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(failureStatus(401, 'Unauthorized', message));
}

/** 405 for a verb the resource does not support. */
export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(
    failureStatus(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, {
      ...(gr.group ? { group: gr.group } : {}),
      kind: gr.resource,
    }),
  );
}

/**
 * 405 `the server does not allow this method on the requested resource`, with empty
 * `details` — what upstream's router answers for a method no route of the path serves
 * (NewGenericServerResponse from go-restful's service error).
 */
export function newMethodNotAllowed(): StatusError {
  return new StatusError(failureStatus(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
}

/** 410 Expired: e.g. `too old resource version: 5 (20)` for watches or lists from a compacted revision. */
export function newResourceExpired(message: string): StatusError {
  return new StatusError(failureStatus(410, 'Expired', message));
}

/** 410 Gone (used by upstream for lists whose continue token is too old). */
export function newGone(message: string): StatusError {
  return new StatusError(failureStatus(410, 'Gone', message));
}

/** 406 Not Acceptable. */
export function newNotAcceptable(message: string): StatusError {
  return new StatusError(failureStatus(406, 'NotAcceptable', message));
}

/** 415 Unsupported Media Type; upstream's message names only the `accepted` types, not the request's `_contentType`. */
export function newUnsupportedMediaType(_contentType: string, accepted: string[]): StatusError {
  return new StatusError(failureStatus(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`));
}

/** 413 Request Entity Too Large. */
export function newRequestEntityTooLarge(message: string): StatusError {
  return new StatusError(failureStatus(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`));
}

/** 500 `Internal error occurred: <message>` */
export function newInternalError(err: unknown): StatusError {
  const msg = err instanceof Error ? err.message : String(err);
  return new StatusError(failureStatus(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] }));
}

/** 504 Timeout. */
export function newTimeout(message: string, retryAfterSeconds = 0): StatusError {
  return new StatusError(failureStatus(504, 'Timeout', message, { retryAfterSeconds }));
}

/** 503 Service Unavailable. */
export function newServiceUnavailable(message: string): StatusError {
  return new StatusError(failureStatus(503, 'ServiceUnavailable', message));
}

/** 429 Too Many Requests. */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(failureStatus(429, 'TooManyRequests', message, { retryAfterSeconds }));
}

/** Converts anything thrown into a StatusError (unknown errors become 500 InternalError). */
export function toStatusError(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  return newInternalError(e);
}
