/**
 * The errors of admission webhooks, with upstream's texts:
 *  - a webhook that could not be called (transport, TLS, timeout, bad response):
 *    {@link CallingWebhookError}, `failed calling webhook "<name>": <reason>`; with
 *    `failurePolicy: Fail` the request gets `500 Internal error occurred: <that>`;
 *  - a webhook that answered `allowed: false`: {@link toStatusErr}, the webhook's own
 *    Status with `admission webhook "<name>" denied the request: <message>`;
 *  - a dry run against a webhook with side effects: {@link newDryRunUnsupported}.
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/plugin/webhook/errors/statuserror.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/util/webhook/error.go
 */
import { newBadRequest, type Status, StatusError, type StatusReason } from '../../../apimachinery/errors.js';

/**
 * A failure to talk to the webhook (not the webhook rejecting the request). `status` is
 * what upstream records for metrics (the HTTP status of an error response, 400 for
 * transport errors, 503 for an invalid response).
 */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    /** upstream's Reason error text, e.g. `failed to call webhook: Post "https://…": …` */
    readonly reasonText: string,
    readonly status: StatusError,
  ) {
    super(`failed calling webhook ${goQuote(webhookName)}: ${reasonText}`);
    this.name = 'CallingWebhookError';
  }
}

/** A webhook's rejection (allowed: false), carrying the Status returned to the client. */
export class WebhookRejection extends Error {
  constructor(readonly status: StatusError) {
    super(status.message);
    this.name = 'WebhookRejection';
  }
}

/**
 * The Status of a webhook's denial (upstream ToStatusErr): the webhook's `result` with a
 * code of at least 400, status Failure and the message `admission webhook "<name>" denied
 * the request: <message or reason>` (`… denied the request without explanation`).
 * @param result `response.status` of the AdmissionReview (metav1.Status), or undefined
 */
export function toStatusErr(webhookName: string, result: Partial<Status> | undefined | null): StatusError {
  const r: Partial<Status> = { ...(result ?? {}) };
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: (r.metadata as Status['metadata']) ?? {},
    status: 'Failure',
    message,
    reason: (r.reason ?? '') as StatusReason,
    ...(r.details ? { details: r.details } : {}),
    code,
  };
  return new StatusError(status);
}

/** 400 `admission webhook "<name>" does not support dry run` (upstream NewDryRunUnsupportedErr). */
export function newDryRunUnsupported(webhookName: string): StatusError {
  return newBadRequest(`admission webhook ${goQuote(webhookName)} does not support dry run`);
}

/** Go's `%q` of a string (the webhook names are printable ASCII: JSON quoting matches). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
