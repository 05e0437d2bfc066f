/**
 * kube-proxy's iptables chain names: the fixed top-level chains and the per-service-port
 * and per-endpoint chains named by a hash, so that a chain name stays within iptables'
 * 28 characters. The hash is SHA-256 of `<servicePortName><protocol>[<endpoint>]`,
 * base32 (RFC 4648 standard alphabet) and cut to 16 characters, exactly as upstream, so
 * the names match a real kube-proxy's for the same Service (`default/kubernetes:https`
 * over tcp is `KUBE-SVC-NPX46M4PTMTKRN6Y` on every cluster).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/iptables/proxier.go (portProtoHash, servicePortEndpointChainName)
 */
import { createHash } from 'node:crypto';

/** Top-level chains kube-proxy owns (nat and/or filter). */
export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';
/** the kubelet's firewall chain (the localhost NodePort guard lives there) */
export const KUBE_FIREWALL = 'KUBE-FIREWALL';

/** The masquerade mark: bit 14 (`--iptables-masquerade-bit` default), as a hex string. */
export const MASQUERADE_MARK = '0x4000';

/** Prefixes of the per-service and per-endpoint chains. */
export const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-FW-', 'KUBE-SEP-'] as const;

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (standard alphabet, padding omitted: callers cut the text anyway). */
export function base32(buf: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

function hash16(text: string): string {
  return base32(createHash('sha256').update(text).digest()).slice(0, 16);
}

/** `<ns>/<name>` or `<ns>/<name>:<port name>` (upstream ServicePortName.String()). */
export function servicePortNameString(namespace: string, name: string, portName: string | undefined): string {
  return portName ? `${namespace}/${name}:${portName}` : `${namespace}/${name}`;
}

/** The chain names of one service port; `protocol` lower-case (`tcp`, `udp`, `sctp`). */
export function serviceChains(servicePortName: string, protocol: string): { svc: string; svl: string; ext: string; fw: string } {
  const h = hash16(servicePortName + protocol);
  return { svc: `KUBE-SVC-${h}`, svl: `KUBE-SVL-${h}`, ext: `KUBE-EXT-${h}`, fw: `KUBE-FW-${h}` };
}

/** `KUBE-SEP-<hash>` of one endpoint (`ip:port`) of a service port. */
export function endpointChain(servicePortName: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${hash16(servicePortName + protocol + endpoint)}`;
}

/** Whether a chain is one of the per-service or per-endpoint chains (upstream isServiceChainName). */
export function isServiceChainName(chain: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((p) => chain.startsWith(p));
}
