/**
 * A CRD conversion webhook server for tests: HTTPS on 127.0.0.1 with a serving certificate
 * from a CA made for the test (src/pki), answering ConversionReviews (v1 or v1beta1) by
 * converting each object with a function of the test. Every review it receives is kept.
 *
 * `hostPortConversion` is the conversion of upstream's e2e test CRD: v1 has
 * `spec.hostPort: "host:port"`, v2 has `spec.host` and `spec.port`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/test/images/agnhost/crd-conversion-webhook/converter/example_converter.go
 */
import { startReviewServer, type TestReviewServer } from './review-server.js';

type O = Record<string, unknown> & { apiVersion: string; kind: string; metadata?: Record<string, unknown>; spec?: Record<string, unknown> };

/** A ConversionReview as received. */
export interface ReceivedConversion {
  path: string;
  query: string;
  apiVersion: string;
  request: { uid: string; desiredAPIVersion: string; objects: O[] };
}

/** What the server answers for one review: converted objects, or a whole answer of the test's own. */
export type ConversionAnswer = { objects: O[] } | { raw: unknown } | { failed: string };

export type TestConversionServer = TestReviewServer<ReceivedConversion>;

/** v1 `spec.hostPort` ↔ v2 `spec.host` + `spec.port` (upstream's example converter). */
export function hostPortConversion(o: O, desiredAPIVersion: string): O {
  const c = structuredClone(o);
  const spec = (c.spec ??= {});
  const to = desiredAPIVersion.split('/')[1];
  if (to === 'v2' && 'hostPort' in spec) {
    const [host, port] = String(spec.hostPort).split(':');
    delete spec.hostPort;
    spec.host = host;
    spec.port = port;
  } else if (to === 'v1' && ('host' in spec || 'port' in spec)) {
    spec.hostPort = `${spec.host ?? ''}:${spec.port ?? ''}`;
    delete spec.host;
    delete spec.port;
  }
  c.apiVersion = desiredAPIVersion;
  return c;
}

/**
 * Starts the server. `answer` decides each review's answer (default: every object through
 * {@link hostPortConversion}).
 */
export async function startConversionServer(answer?: (r: ReceivedConversion) => ConversionAnswer): Promise<TestConversionServer> {
  return startReviewServer<ReceivedConversion>('conversion-webhook', (review) => {
    const a = answer ? answer(review) : { objects: review.request.objects.map((o) => hostPortConversion(o, review.request.desiredAPIVersion)) };
    if ('raw' in a) return a.raw;
    const response =
      'failed' in a
        ? { uid: review.request.uid, result: { status: 'Failure', message: a.failed } }
        : { uid: review.request.uid, convertedObjects: a.objects, result: { status: 'Success' } };
    return { apiVersion: review.apiVersion, kind: 'ConversionReview', response };
  });
}
