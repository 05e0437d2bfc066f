/**
 * Signing CSRs with the cluster CA (upstream csrsigning's local signer): the
 * certificate carries the CSR's subject and public key, the key usages the CSR asks
 * for, and lives `expirationSeconds` (capped at the cluster signing duration).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/certificates/signer/signer.go
 */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface SigningCA {
  cert: string;
  key: string;
}

/** `--cluster-signing-duration` default: one year, in seconds. */
const DEFAULT_SIGNING_SECONDS = 365 * 86400;

const EKU: Record<string, string> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};
const KU: Record<string, number> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
};

async function importCAKey(pem: string): Promise<CryptoKey> {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return webcrypto.subtle.importKey('pkcs8', Buffer.from(b64, 'base64'), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']) as Promise<CryptoKey>;
}

/**
 * Signs a PEM CSR. Returns the PEM certificate.
 * @param seconds lifetime (capped at DEFAULT_SIGNING_SECONDS)
 */
export async function signCSR(ca: SigningCA, csrPEM: string, usages: string[], seconds = DEFAULT_SIGNING_SECONDS, now = new Date()): Promise<string> {
  const csr = new x509.Pkcs10CertificateRequest(csrPEM);
  if (!(await csr.verify())) throw new Error('CSR signature verification failed');
  const caCert = new x509.X509Certificate(ca.cert);
  const notBefore = new Date(now.getTime() - 5 * 60_000);
  const life = Math.min(seconds, DEFAULT_SIGNING_SECONDS);
  let ku = 0;
  for (const u of usages) ku |= KU[u] ?? 0;
  const eku = usages.map((u) => EKU[u]).filter((v): v is string => !!v);
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (ku) extensions.push(new x509.KeyUsagesExtension(ku, true));
  if (eku.length) extensions.push(new x509.ExtendedKeyUsageExtension(eku, false));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(caCert, false));
  for (const e of csr.extensions) if (e.type === '2.5.29.17') extensions.push(e);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    subject: csr.subject,
    issuer: caCert.subject,
    notBefore,
    notAfter: new Date(now.getTime() + life * 1000),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    publicKey: csr.publicKey,
    signingKey: await importCAKey(ca.key),
    extensions,
  });
  return cert.toString('pem') + '\n';
}

/** Creates a key pair and a PEM CSR (for `k8ts agent` and tests). */
export async function createCSR(commonName: string, organizations: string[] = []): Promise<{ csr: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const esc = (s: string) => s.replace(/([,+="\\<>;])/g, '\\$1');
  const name = [...organizations.map((o) => `O=${esc(o)}`), `CN=${esc(commonName)}`].join(', ');
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: alg });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return { csr: csr.toString('pem') + '\n', key: `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n` };
}
