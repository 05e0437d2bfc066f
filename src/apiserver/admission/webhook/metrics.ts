/**
 * The admission webhook metrics of kube-apiserver, with upstream's names, labels, help
 * texts and buckets (the `type` label is `admit` for mutating and `validating` for
 * validating webhooks, as upstream records them):
 *  - `apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected}`
 *  - `apiserver_admission_webhook_request_total{name,type,operation,code,rejected}`
 *  - `apiserver_admission_webhook_rejection_count{name,type,operation,error_type,rejection_code}`
 *  - `apiserver_admission_webhook_fail_open_count{name,type}`
 *
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/admission/metrics/metrics.go
 */
import { FastCounter, FastHistogram } from '../../../util/metrics-fast.js';

/** Why a webhook rejected a request (upstream WebhookRejectionErrorType). */
export type RejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';
/** `admit` (mutating) or `validating`. */
export type WebhookStepType = 'admit' | 'validating';

const clampCode = (c: number): string => String(Math.min(c, 600));

export class WebhookMetrics {
  readonly duration = new FastHistogram(
    'apiserver_admission_webhook_admission_duration_seconds',
    'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    ['name', 'type', 'operation', 'rejected'],
    [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
  );
  readonly requests = new FastCounter(
    'apiserver_admission_webhook_request_total',
    'Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    ['name', 'type', 'operation', 'code', 'rejected'],
  );
  readonly rejections = new FastCounter(
    'apiserver_admission_webhook_rejection_count',
    'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    ['name', 'type', 'operation', 'error_type', 'rejection_code'],
  );
  readonly failOpen = new FastCounter(
    'apiserver_admission_webhook_fail_open_count',
    'Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).',
    ['name', 'type'],
  );

  /** Every metric, for the API server's registry. */
  all(): unknown[] {
    return [this.duration, this.requests, this.rejections, this.failOpen];
  }

  /** Upstream ObserveWebhook: one call, its latency and outcome. */
  observe(name: string, type: WebhookStepType, operation: string, elapsedSeconds: number, rejected: boolean, code: number): void {
    this.requests.labels(name, type, operation, clampCode(code), String(rejected)).inc();
    this.duration.labels(name, type, operation, String(rejected)).observe(elapsedSeconds);
  }

  /** Upstream ObserveWebhookRejection. */
  rejection(name: string, type: WebhookStepType, operation: string, errorType: RejectionErrorType, code: number): void {
    this.rejections.labels(name, type, operation, errorType, clampCode(code)).inc();
  }

  /** Upstream ObserveWebhookFailOpen. */
  failedOpen(name: string, type: WebhookStepType): void {
    this.failOpen.labels(name, type).inc();
  }
}
