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
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issueCert } from '../../src/pki/pki.js';

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

export interface TestConversionServer {
  port: number;
  /** base64 of the CA certificate (PEM), for `clientConfig.caBundle` */
  caBundle: string;
  reviews: ReceivedConversion[];
  close(): Promise<void>;
}

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
  const ca = await createCA('conversion-test-ca');
  const serving = await issueCert(ca, { commonName: 'conversion-webhook', ipAddresses: ['127.0.0.1'], usage: 'server' });
  const reviews: ReceivedConversion[] = [];
  const server: Server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedConversion;
      review.path = (req.url ?? '').split('?')[0]!;
      review.query = (req.url ?? '').split('?')[1] ?? '';
      reviews.push(review);
      const a = answer ? answer(review) : { objects: review.request.objects.map((o) => hostPortConversion(o, review.request.desiredAPIVersion)) };
      res.writeHead(200, { 'content-type': 'application/json' });
      if ('raw' in a) return res.end(JSON.stringify(a.raw));
      const response =
        'failed' in a
          ? { uid: review.request.uid, result: { status: 'Failure', message: a.failed } }
          : { uid: review.request.uid, convertedObjects: a.objects, result: { status: 'Success' } };
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    reviews,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
