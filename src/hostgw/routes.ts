/**
 * The route table of flannel's host-gw backend, as pure functions: every other node's
 * podCIDR is routed via that node's InternalIP (announced as flannel's `public-ip`
 * annotation), which must be on a subnet this node is directly attached to (host-gw needs the nodes on one layer-2 segment; flannel refuses
 * other nodes' leases otherwise). The routes carry a protocol number of their own
 * ({@link ROUTE_PROTOCOL}) so the controller finds exactly its own routes again and
 * `k8ts reset` removes them.
 *
 * @see https://github.com/flannel-io/flannel/blob/master/pkg/backend/hostgw/hostgw.go
 * @see https://github.com/flannel-io/flannel/blob/master/pkg/backend/route_network.go
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { cidrContains, ipv4ToInt } from '../proxy/addresses.js';

/** flannel's node annotations (kube subnet manager): the backend a node runs and the address its peers route its podCIDR to. */
export const BACKEND_TYPE_ANNOTATION = 'flannel.alpha.coreos.com/backend-type';
export const PUBLIC_IP_ANNOTATION = 'flannel.alpha.coreos.com/public-ip';
export const KUBE_SUBNET_MANAGER_ANNOTATION = 'flannel.alpha.coreos.com/kube-subnet-manager';
export const BACKEND_DATA_ANNOTATION = 'flannel.alpha.coreos.com/backend-data';

/** The annotations a node running the host-gw routes controller carries (flannel writes the same ones). */
export function hostGatewayAnnotations(publicIP: string): Record<string, string> {
  return {
    [BACKEND_DATA_ANNOTATION]: 'null',
    [BACKEND_TYPE_ANNOTATION]: 'host-gw',
    [KUBE_SUBNET_MANAGER_ANNOTATION]: 'true',
    [PUBLIC_IP_ANNOTATION]: publicIP,
  };
}

/** The `proto` of every route this controller writes (iproute2 `proto 75`; kernel ones are ≤ 4, routing daemons use 8–192 names, 75 is unassigned). */
export const ROUTE_PROTOCOL = 75;

/** One host-gw route: `ip route replace <dst> via <gateway> dev <dev> proto 75`. */
export interface PodRoute {
  /** the other node's podCIDR, `a.b.c.d/n` */
  dst: string;
  /** the other node's public IP (its InternalIP) */
  gateway: string;
  /** the local interface whose subnet holds `gateway` */
  dev: string;
}

/** An IPv4 address of a local interface (`ip -j -4 addr show`). */
export interface LocalAddress {
  dev: string;
  address: string;
  prefixLen: number;
}

/** Why a node got no route (logged once per reason change). */
export interface SkippedNode {
  node: string;
  reason: string;
}

/** Parses `ip -j -4 addr show` into addresses (loopback left out). */
export function parseAddresses(json: string): LocalAddress[] {
  const out: LocalAddress[] = [];
  const links = JSON.parse(json || '[]') as { ifname?: string; flags?: string[]; addr_info?: { family?: string; local?: string; prefixlen?: number }[] }[];
  for (const l of links) {
    if (!l.ifname || l.flags?.includes('LOOPBACK')) continue;
    for (const a of l.addr_info ?? []) if (a.family === 'inet' && a.local && typeof a.prefixlen === 'number') out.push({ dev: l.ifname, address: a.local, prefixLen: a.prefixlen });
  }
  return out;
}

/** Parses `ip -j -4 route show proto 75` into routes (only `via` routes of that protocol are ours). */
export function parseRoutes(json: string): PodRoute[] {
  const rows = JSON.parse(json || '[]') as { dst?: string; gateway?: string; dev?: string }[];
  return rows.filter((r) => r.dst && r.gateway && r.dev).map((r) => ({ dst: r.dst!.includes('/') ? r.dst! : `${r.dst}/32`, gateway: r.gateway!, dev: r.dev! }));
}

/** A node's first IPv4 address of `type` (InternalIP: the address it announces as public IP). */
export const nodeAddress = (n: Node, type: string): string | undefined => n.status?.addresses?.find((a) => a.type === type && ipv4ToInt(a.address) !== undefined)?.address;

/** Simulated nodes (their pods have no packets) and kwok nodes get no route. */
function simulated(n: Node): boolean {
  const l = n.metadata?.labels ?? {};
  return l['k8ts.io/runtime'] === 'sim' || l.type === 'kwok' || n.metadata?.annotations?.['kwok.x-k8s.io/node'] === 'fake';
}

/**
 * The routes this node needs: for every other node that runs the host-gw backend (its
 * flannel annotations) with an IPv4 podCIDR inside `clusterCIDR` and a public IP on one of
 * `local`'s subnets, `podCIDR via <public IP>`. Only nodes that announce the backend are
 * routed (as flannel routes only nodes with its leases), so a Node object alone never
 * sends pod traffic anywhere. Nodes that cannot be routed are returned in `skipped`.
 */
export function desiredRoutes(nodes: readonly Node[], self: string, local: readonly LocalAddress[], clusterCIDR: string): { routes: PodRoute[]; skipped: SkippedNode[] } {
  const routes: PodRoute[] = [];
  const skipped: SkippedNode[] = [];
  const own = new Set(local.map((a) => a.address));
  for (const n of nodes) {
    const name = n.metadata?.name ?? '';
    if (name === self || simulated(n)) continue;
    const cidr = (n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : [])).find((c) => ipv4ToInt(c.split('/')[0] ?? '') !== undefined);
    if (!cidr) continue; // no podCIDR yet: the node IPAM controller will give one
    const ann = n.metadata?.annotations ?? {};
    if (ann[BACKEND_TYPE_ANNOTATION] !== 'host-gw') {
      skipped.push({ node: name, reason: `it does not run the host-gw backend (${BACKEND_TYPE_ANNOTATION}: ${ann[BACKEND_TYPE_ANNOTATION] ?? 'none'})` });
      continue;
    }
    if (!cidrContains(clusterCIDR, cidr.split('/')[0]!)) {
      skipped.push({ node: name, reason: `podCIDR ${cidr} is outside the cluster CIDR ${clusterCIDR}` });
      continue;
    }
    const ip = ann[PUBLIC_IP_ANNOTATION];
    if (!ip || ipv4ToInt(ip) === undefined) {
      skipped.push({ node: name, reason: `no IPv4 ${PUBLIC_IP_ANNOTATION}` });
      continue;
    }
    if (own.has(ip)) {
      skipped.push({ node: name, reason: `its public IP ${ip} is an address of this node` });
      continue;
    }
    const on = local.find((a) => a.prefixLen < 32 && cidrContains(`${a.address}/${a.prefixLen}`, ip));
    if (!on) {
      skipped.push({ node: name, reason: `its public IP ${ip} is not on a subnet of this node (host-gw needs the nodes on one layer-2 network)` });
      continue;
    }
    routes.push({ dst: cidr, gateway: ip, dev: on.dev });
  }
  routes.sort((a, b) => (a.dst < b.dst ? -1 : a.dst > b.dst ? 1 : 0));
  return { routes, skipped };
}

/** What to change: routes to add or replace (new or different gateway/dev), routes to delete. */
export function planRoutes(current: readonly PodRoute[], desired: readonly PodRoute[]): { replace: PodRoute[]; remove: PodRoute[] } {
  const cur = new Map(current.map((r) => [r.dst, r]));
  const want = new Map(desired.map((r) => [r.dst, r]));
  const replace = desired.filter((r) => {
    const c = cur.get(r.dst);
    return !c || c.gateway !== r.gateway || c.dev !== r.dev;
  });
  const remove = current.filter((r) => !want.has(r.dst));
  return { replace, remove };
}
