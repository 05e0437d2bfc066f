/**
 * CNI configuration for the node's pod network: one Linux bridge, host-local IPAM over
 * the node's podCIDR, and portmap for hostPort. No masquerading (ipMasq: false): pod
 * addresses are only reachable on this machine.
 *
 * @see https://www.cni.dev/plugins/current/main/bridge/
 * @see https://www.cni.dev/plugins/current/ipam/host-local/
 * @see https://www.cni.dev/plugins/current/meta/portmap/
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where distributions put CNI plugins: upstream's default, Debian's two locations. */
export const CNI_BIN_DIRS = ['/opt/cni/bin', '/usr/lib/cni', '/usr/libexec/cni'] as const;
/** Plugins the generated config needs (containerd adds `loopback` itself). */
export const REQUIRED_CNI_PLUGINS = ['bridge', 'host-local', 'portmap', 'loopback'] as const;

/** Thrown when no CNI plugin directory has the required plugins, or for a bad podCIDR. */
export class CNIConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CNIConfigError';
  }
}

/**
 * The first directory of `candidates` holding every required plugin.
 * @throws CNIConfigError naming the missing plugins (install containernetworking-plugins).
 */
export function detectCNIBinDir(candidates: readonly string[] = CNI_BIN_DIRS): string {
  for (const dir of candidates) {
    if (REQUIRED_CNI_PLUGINS.every((p) => existsSync(join(dir, p)))) return dir;
  }
  throw new CNIConfigError(`no CNI plugin directory among ${candidates.join(', ')} has ${REQUIRED_CNI_PLUGINS.join(', ')} (install containernetworking-plugins)`);
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;
const V6 = /^[0-9a-fA-F:]+\/(\d{1,3})$/;

/** Checks a CIDR; returns its family. @throws CNIConfigError */
export function cidrFamily(cidr: string): 4 | 6 {
  const m = V4.exec(cidr);
  if (m) {
    if (m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 30) throw new CNIConfigError(`invalid pod CIDR ${cidr}`);
    return 4;
  }
  const m6 = V6.exec(cidr);
  if (m6 && cidr.includes(':') && Number(m6[1]) <= 126) return 6;
  throw new CNIConfigError(`invalid pod CIDR ${JSON.stringify(cidr)}`);
}

export interface CNIOptions {
  /** e.g. "10.42.0.0/24" (IPv4 or IPv6) */
  podCIDR: string;
  /** network name (CNI cache and result keys); default "k8ts" */
  networkName?: string;
  /** Linux bridge name, at most 15 bytes; default "k8ts0" */
  bridgeName?: string;
  /** host-local's lease directory; default /var/lib/cni/networks */
  ipamDataDir?: string;
  /** MTU of the bridge and veths; default: the plugin's (1500) */
  mtu?: number;
}

/** The conflist JSON text (`cniVersion` 1.0.0) for containerd's CNI conf_dir. @throws CNIConfigError */
export function cniConflist(o: CNIOptions): string {
  const fam = cidrFamily(o.podCIDR);
  const bridge = o.bridgeName ?? 'k8ts0';
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(bridge)) throw new CNIConfigError(`invalid bridge name ${JSON.stringify(bridge)} (1–15 characters)`);
  const ipam: Record<string, unknown> = {
    type: 'host-local',
    ranges: [[{ subnet: o.podCIDR }]],
    routes: [{ dst: fam === 4 ? '0.0.0.0/0' : '::/0' }],
  };
  if (o.ipamDataDir) ipam.dataDir = o.ipamDataDir;
  const br: Record<string, unknown> = {
    type: 'bridge',
    bridge,
    isGateway: true,
    ipMasq: false,
    hairpinMode: true,
    ipam,
  };
  if (o.mtu) br.mtu = o.mtu;
  return JSON.stringify({ cniVersion: '1.0.0', name: o.networkName ?? 'k8ts', plugins: [br, { type: 'portmap', capabilities: { portMappings: true } }] }, null, 2) + '\n';
}
