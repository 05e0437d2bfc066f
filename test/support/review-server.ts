/**
 * The HTTPS server under the tests' webhook servers (admission, CRD conversion): on
 * 127.0.0.1 with a serving certificate from a CA made for the test (src/pki); each request
 * body is parsed as JSON, given its URL path and query, kept in `reviews`, and answered
 * with what `answer` returns (undefined: never answered).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issueCert, type KeyPairPEM } from '../../src/pki/pki.js';

/** A running review server. */
export interface TestReviewServer<R> {
  port: number;
  /** base64 of the CA certificate (PEM), for `clientConfig.caBundle` */
  caBundle: string;
  reviews: R[];
  /** stops listening and drops open connections */
  close(): Promise<void>;
}

/**
 * @param name names the CA (`<name>-test-ca`) and the serving certificate
 * @param answer the JSON body to answer a review with, or undefined to leave it hanging
 * @param o `port` (default any free port), the CA to issue from, extra DNS names of the certificate
 */
export async function startReviewServer<R extends { path: string; query: string }>(
  name: string,
  answer: (review: R) => unknown,
  o: { port?: number; ca?: KeyPairPEM; dnsNames?: string[] } = {},
): Promise<TestReviewServer<R>> {
  const ca = o.ca ?? (await createCA(`${name}-test-ca`));
  const serving = await issueCert(ca, { commonName: name, ipAddresses: ['127.0.0.1'], dnsNames: o.dnsNames, usage: 'server' });
  const reviews: R[] = [];
  const server: Server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as R;
      review.path = (req.url ?? '').split('?')[0]!;
      review.query = (req.url ?? '').split('?')[1] ?? '';
      reviews.push(review);
      const body = answer(review);
      if (body === undefined) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', resolve));
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
