/**
 * A small admission webhook server for tests: HTTPS on 127.0.0.1 with a serving
 * certificate from a CA made for the test (src/pki), answering AdmissionReviews with a
 * function of the request. Every review it receives is kept in `reviews`.
 */
import type { KeyPairPEM } from '../../src/pki/pki.js';
import { startReviewServer, type TestReviewServer } from './review-server.js';

/** The `response` of an AdmissionReview, without `uid` (added by the server). */
export interface ReviewResponse {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string };
  patch?: unknown[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** The AdmissionReview request a webhook got (the parts tests look at). */
export interface ReceivedReview {
  /** the URL path, and its query (`timeout=10s`) */
  path: string;
  query: string;
  apiVersion: string;
  request: {
    uid: string;
    kind: { group: string; version: string; kind: string };
    resource: { group: string; version: string; resource: string };
    requestKind?: { group: string; version: string; kind: string };
    name?: string;
    namespace?: string;
    operation: string;
    userInfo: { username?: string; groups?: string[] };
    object: { metadata?: { name?: string; labels?: Record<string, string> } } | null;
    oldObject: unknown;
    dryRun: boolean;
    options: Record<string, unknown> | null;
  };
}

export type TestWebhookServer = TestReviewServer<ReceivedReview>;

/**
 * Starts the server. `answer` returns the response for a review, or `'hang'` to never answer.
 * @param o `port` to listen on (default any free port), the CA to issue from, extra DNS names of the certificate
 */
export async function startWebhookServer(
  answer: (r: ReceivedReview) => ReviewResponse | 'hang',
  o: { port?: number; ca?: KeyPairPEM; dnsNames?: string[] } = {},
): Promise<TestWebhookServer> {
  return startReviewServer<ReceivedReview>(
    'webhook',
    (review) => {
      const a = answer(review);
      if (a === 'hang') return undefined;
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: a.allowed };
      if (a.status) response.status = a.status;
      if (a.patch) {
        response.patchType = 'JSONPatch';
        response.patch = Buffer.from(JSON.stringify(a.patch)).toString('base64');
      }
      if (a.warnings) response.warnings = a.warnings;
      if (a.auditAnnotations) response.auditAnnotations = a.auditAnnotations;
      return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response };
    },
    o,
  );
}
