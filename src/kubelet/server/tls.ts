/**
 * The kubelet's serving certificate: signed by the cluster CA, for the node's name,
 * the host name, `localhost` and every address the API server may dial (all
 * non-internal IPv4/IPv6 addresses of this machine and the loopback ones), so that
 * the API server verifies it whichever node address it prefers.
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/kubelet-tls-bootstrapping/
 */
import { hostname, networkInterfaces } from 'node:os';
import { issueCert, type KeyPairPEM } from '../../pki/pki.js';

/** Every address of this machine (IPv4 first), loopback included. */
export function localAddresses(): string[] {
  const v4 = new Set<string>(['127.0.0.1']);
  const v6 = new Set<string>(['::1']);
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) (a.family === 'IPv4' ? v4 : v6).add(a.address.replace(/%.*$/, ''));
  }
  return [...v4, ...v6];
}

/**
 * Issues a serving certificate for the kubelet of `nodeName` (CN `system:node:<name>`,
 * O `system:nodes`, server usage, valid 365 days).
 * @param extra additional DNS names / IPs (e.g. the node's InternalIP when it is not local)
 */
export async function issueKubeletServingCert(ca: KeyPairPEM, nodeName: string, extra: { dnsNames?: string[]; ips?: string[] } = {}): Promise<KeyPairPEM> {
  const dnsNames = [...new Set([nodeName, hostname().toLowerCase(), 'localhost', ...(extra.dnsNames ?? [])])];
  const ips = [...new Set([...localAddresses(), ...(extra.ips ?? [])])];
  return issueCert(ca, { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'], dnsNames, ipAddresses: ips, usage: 'server' });
}
