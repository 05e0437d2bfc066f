/**
 * The kubelet's side of TLS bootstrapping (what `k8ts agent` runs with a bootstrap
 * token): create a key and a CertificateSigningRequest for `system:node:<name>` in
 * `system:nodes` with the kube-apiserver-client-kubelet signer, then wait until the
 * CSR is approved and issued.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/kubelet-tls-bootstrapping/
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { KObject } from '../../api/resource.js';
import { KUBE_APISERVER_CLIENT_KUBELET } from '../../api/certificates/definition.js';
import type { Client } from '../../client/types.js';
import { CSR_REF } from './controller.js';
import { createCSR } from './sign.js';

interface NodeCredentials {
  /** PEM certificate signed by the cluster CA */
  cert: string;
  /** PEM PKCS#8 private key */
  key: string;
}

interface RequestOptions {
  /** how long to wait for approval and signing (default 60 s) */
  timeoutMs?: number;
  /** requested lifetime in seconds (default: the signer's) */
  expirationSeconds?: number;
  /** poll interval while waiting (default 200 ms) */
  pollMs?: number;
}

/**
 * Requests a kubelet client certificate.
 * @param client authenticated as a bootstrap token (or as the node, to rotate)
 * @throws Error when the CSR is denied or fails, or on timeout
 */
export async function requestNodeClientCertificate(client: Client, nodeName: string, o: RequestOptions = {}): Promise<NodeCredentials> {
  const { csr, key } = await createCSR(`system:node:${nodeName}`, ['system:nodes']);
  const obj: CertificateSigningRequest & KObject = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { generateName: 'node-csr-' },
    spec: {
      request: Buffer.from(csr).toString('base64'),
      signerName: KUBE_APISERVER_CLIENT_KUBELET,
      usages: ['digital signature', 'client auth'],
      ...(o.expirationSeconds ? { expirationSeconds: o.expirationSeconds } : {}),
    },
  };
  const created = await client.create<CertificateSigningRequest & KObject>(CSR_REF, '', obj);
  const name = created.metadata!.name!;
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    const cur = await client.get<CertificateSigningRequest & KObject>(CSR_REF, '', name);
    const bad = cur.status?.conditions?.find((c) => c.type === 'Denied' || c.type === 'Failed');
    if (bad) throw new Error(`certificate signing request ${name} is ${bad.type.toLowerCase()}: ${bad.message ?? bad.reason ?? ''}`);
    if (cur.status?.certificate) return { cert: Buffer.from(cur.status.certificate, 'base64').toString('utf8'), key };
    if (Date.now() > deadline) throw new Error(`timed out waiting for certificate signing request ${name} to be issued`);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 200));
  }
}
