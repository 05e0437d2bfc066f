/**
 * The managed etcd's PKI, laid out under `<data-dir>/tls/` as kubeadm lays out
 * `/etc/kubernetes/pki/`: an etcd CA of its own (`etcd/ca.crt`, `etcd/ca.key`), the
 * member's serving certificate (`etcd/server.*`), its peer certificate (`etcd/peer.*`),
 * the health-check client (`etcd/healthcheck-client.*`) and the API server's client
 * certificate (`apiserver-etcd-client.*`). So the operator's usual command works:
 *
 * ```sh
 * etcdctl --endpoints https://127.0.0.1:2379 --cacert <data-dir>/tls/etcd/ca.crt \
 *   --cert <data-dir>/tls/etcd/healthcheck-client.crt --key <data-dir>/tls/etcd/healthcheck-client.key \
 *   get /registry/pods/default/nginx
 * ```
 *
 * Certificates are made on first start and reused; a server or peer certificate that no
 * longer covers the member's names and addresses is issued again (same CA). Every server
 * of a cluster shares the etcd CA (a joining server receives it from the first, see
 * bootstrap-data.ts) and issues its own member certificates.
 *
 * @see https://kubernetes.io/docs/setup/best-practices/certificates/#single-root-ca
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/cmd/kubeadm/app/phases/certs/certlist.go
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCA, issueCert, type KeyPairPEM } from '../pki/pki.js';

/** Absolute paths of one certificate and its key. */
export interface CertFiles {
  cert: string;
  key: string;
}

/** The etcd PKI files of a data dir. */
export interface EtcdPKI {
  /** `<data-dir>/tls/etcd` */
  dir: string;
  ca: CertFiles;
  server: CertFiles;
  peer: CertFiles;
  healthcheckClient: CertFiles;
  /** the API server's client certificate (`<data-dir>/tls/apiserver-etcd-client.*`, as kubeadm) */
  apiserverClient: CertFiles;
}

/** Where the etcd PKI of `dataDir` lives (files may not exist yet). */
export function etcdPKIPaths(dataDir: string): EtcdPKI {
  const tls = join(dataDir, 'tls');
  const dir = join(tls, 'etcd');
  const pair = (d: string, base: string): CertFiles => ({ cert: join(d, `${base}.crt`), key: join(d, `${base}.key`) });
  return {
    dir,
    ca: pair(dir, 'ca'),
    server: pair(dir, 'server'),
    peer: pair(dir, 'peer'),
    healthcheckClient: pair(dir, 'healthcheck-client'),
    apiserverClient: pair(tls, 'apiserver-etcd-client'),
  };
}

function read(f: CertFiles): KeyPairPEM | undefined {
  return existsSync(f.cert) && existsSync(f.key) ? { cert: readFileSync(f.cert, 'utf8'), key: readFileSync(f.key, 'utf8') } : undefined;
}

function write(f: CertFiles, p: KeyPairPEM): void {
  writeFileSync(f.cert, p.cert, { mode: 0o644 });
  writeFileSync(f.key, p.key, { mode: 0o600 });
}

/** True when `pem` was signed by `caPEM`, covers every name and address, and has a week left. */
function covers(pem: string, caPEM: string, dnsNames: string[], ips: string[]): boolean {
  try {
    const c = new X509Certificate(pem);
    if (!c.checkIssued(new X509Certificate(caPEM)) || new Date(c.validTo).getTime() < Date.now() + 7 * 86400_000) return false;
    const san = c.subjectAltName ?? '';
    // checkIP compares addresses, not their spelling (Node prints ::1 as 0:0:0:0:0:0:0:1)
    return dnsNames.every((d) => san.split(', ').includes(`DNS:${d}`)) && ips.every((ip) => c.checkIP(ip) !== undefined);
  } catch {
    return false;
  }
}

/**
 * Loads the etcd PKI of `dataDir`, creating what is missing.
 * @param member the member's node name (CN of the server and peer certificates, as kubeadm)
 * @param dnsNames extra DNS SANs of the server and peer certificates (besides `localhost` and `member`)
 * @param ips IP SANs of the server and peer certificates (127.0.0.1 and ::1 are always in)
 */
export async function ensureEtcdPKI(dataDir: string, member: string, dnsNames: string[], ips: string[]): Promise<EtcdPKI> {
  const p = etcdPKIPaths(dataDir);
  mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  let ca = read(p.ca);
  if (!ca) {
    ca = await createCA('etcd-ca');
    write(p.ca, ca);
  }
  const names = [...new Set(['localhost', member, ...dnsNames])];
  const addrs = [...new Set(['127.0.0.1', '::1', ...ips])];
  for (const f of [p.server, p.peer]) {
    const have = read(f);
    if (!have || !covers(have.cert, ca.cert, names, addrs)) write(f, await issueCert(ca, { commonName: member, dnsNames: names, ipAddresses: addrs, usage: 'both' }));
  }
  const clients: [CertFiles, string][] = [
    [p.healthcheckClient, 'kube-etcd-healthcheck-client'],
    [p.apiserverClient, 'kube-apiserver-etcd-client'],
  ];
  for (const [f, cn] of clients) {
    const have = read(f);
    if (!have || !covers(have.cert, ca.cert, [], [])) write(f, await issueCert(ca, { commonName: cn, usage: 'client' }));
  }
  return p;
}
