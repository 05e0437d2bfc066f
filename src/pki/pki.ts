/**
 * Cluster PKI: a self-signed cluster CA, the API server's serving certificate and
 * client certificates (CN = user, O = groups), all ECDSA P-256, PEM files under
 * `<data-dir>/tls/`. Generated on first start, reused afterwards.
 *
 * @see https://kubernetes.io/docs/setup/best-practices/certificates/
 */
import { webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface KeyPairPEM {
  cert: string;
  key: string;
}

export interface CertOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  /** validity in days (default 365) */
  days?: number;
  usage: 'server' | 'client' | 'both';
}

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return webcrypto.subtle.importKey('pkcs8', Buffer.from(b64, 'base64'), alg, true, ['sign']) as Promise<CryptoKey>;
}

function dn(cn: string, orgs: string[] = []): string {
  const esc = (s: string) => s.replace(/([,+="\\<>;])/g, '\\$1');
  return [...orgs.map((o) => `O=${esc(o)}`), `CN=${esc(cn)}`].join(', ');
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

/** Creates a self-signed CA (10 years). */
export async function createCA(commonName: string): Promise<KeyPairPEM> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: now,
    notAfter: new Date(now.getTime() + 3650 * 86400_000),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/** Issues a certificate signed by `ca`. */
export async function issueCert(ca: KeyPairPEM, o: CertOptions): Promise<KeyPairPEM> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const now = new Date(Date.now() - 60_000);
  const eku: string[] = [];
  if (o.usage !== 'client') eku.push(x509.ExtendedKeyUsage.serverAuth);
  if (o.usage !== 'server') eku.push(x509.ExtendedKeyUsage.clientAuth);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(eku, false),
    await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
  ];
  const names: x509.JsonGeneralName[] = [
    ...(o.dnsNames ?? []).map((v) => ({ type: 'dns' as const, value: v })),
    ...(o.ipAddresses ?? []).map((v) => ({ type: 'ip' as const, value: v })),
  ];
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: dn(o.commonName, o.organizations),
    issuer: caCert.subject,
    notBefore: now,
    notAfter: new Date(now.getTime() + (o.days ?? 365) * 86400_000),
    signingAlgorithm: alg,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions,
  });
  return { cert: cert.toString('pem') + '\n', key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/** Paths of the cluster's PKI files. */
export interface ClusterPKI {
  dir: string;
  ca: KeyPairPEM;
  server: KeyPairPEM;
  admin: KeyPairPEM;
  /** client cert the server's own components use on the loopback connection */
  loopback: KeyPairPEM;
}

function readPair(dir: string, base: string): KeyPairPEM | undefined {
  const c = join(dir, `${base}.crt`);
  const k = join(dir, `${base}.key`);
  if (!existsSync(c) || !existsSync(k)) return undefined;
  return { cert: readFileSync(c, 'utf8'), key: readFileSync(k, 'utf8') };
}

function writePair(dir: string, base: string, p: KeyPairPEM): void {
  writeFileSync(join(dir, `${base}.crt`), p.cert, { mode: 0o644 });
  writeFileSync(join(dir, `${base}.key`), p.key, { mode: 0o600 });
}

/** True when `cert` covers every wanted SAN and is not about to expire. */
function servingCertCovers(certPem: string, dnsNames: string[], ips: string[]): boolean {
  try {
    const c = new NodeX509(certPem);
    if (new Date(c.validTo).getTime() < Date.now() + 7 * 86400_000) return false;
    const san = c.subjectAltName ?? '';
    return dnsNames.every((d) => san.includes(`DNS:${d}`)) && ips.every((ip) => san.includes(`IP Address:${ip}`));
  } catch {
    return false;
  }
}

/**
 * Loads the PKI under `<dataDir>/tls`, creating what is missing (the CA, the serving
 * certificate for `dnsNames`/`ips`, the admin client certificate
 * CN=kubernetes-admin O=system:masters).
 */
export async function ensurePKI(dataDir: string, dnsNames: string[], ips: string[]): Promise<ClusterPKI> {
  const dir = join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let ca = readPair(dir, 'ca');
  if (!ca) {
    ca = await createCA(`k8ts-ca@${Math.floor(Date.now() / 1000)}`);
    writePair(dir, 'ca', ca);
  }
  let server = readPair(dir, 'apiserver');
  if (!server || !servingCertCovers(server.cert, dnsNames, ips)) {
    server = await issueCert(ca, { commonName: 'kube-apiserver', dnsNames, ipAddresses: ips, usage: 'server' });
    writePair(dir, 'apiserver', server);
  }
  let admin = readPair(dir, 'admin');
  if (!admin) {
    admin = await issueCert(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'client' });
    writePair(dir, 'admin', admin);
  }
  let loopback = readPair(dir, 'loopback');
  if (!loopback) {
    loopback = await issueCert(ca, { commonName: 'system:apiserver', organizations: ['system:masters'], usage: 'client' });
    writePair(dir, 'loopback', loopback);
  }
  return { dir, ca, server, admin, loopback };
}

/** The front-proxy PKI: its own CA and the aggregator's client certificate (CN=front-proxy-client). */
export interface FrontProxyPKI {
  /** signs front-proxy client certificates (upstream --requestheader-client-ca-file) */
  ca: KeyPairPEM;
  /** the aggregator's client certificate (upstream --proxy-client-cert-file / --proxy-client-key-file) */
  client: KeyPairPEM;
}

/**
 * Loads `<dataDir>/tls/front-proxy-ca.*` and `front-proxy-client.*`, creating what is
 * missing, as kubeadm lays them out: a CA apart from the cluster CA (so no cluster client
 * certificate can pose as the aggregator) and a client certificate CN=front-proxy-client.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/configure-aggregation-layer/#ca-reusage-and-conflicts
 */
export async function ensureFrontProxyPKI(dataDir: string): Promise<FrontProxyPKI> {
  const dir = join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let ca = readPair(dir, 'front-proxy-ca');
  let client = readPair(dir, 'front-proxy-client');
  if (!ca) {
    ca = await createCA(`front-proxy-ca@${Math.floor(Date.now() / 1000)}`);
    writePair(dir, 'front-proxy-ca', ca);
    client = undefined;
  }
  if (!client) {
    client = await issueCert(ca, { commonName: 'front-proxy-client', usage: 'client' });
    writePair(dir, 'front-proxy-client', client);
  }
  return { ca, client };
}
