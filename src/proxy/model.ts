/**
 * What the proxy programs, derived from Services and EndpointSlices: one
 * {@link ServicePortInfo} per port of every Service with a cluster IP, and the
 * endpoints of each, per upstream's ServiceChangeTracker / EndpointsChangeTracker
 * (IPv4 only: the node's family). Headless Services (`clusterIP: None`) and
 * ExternalName Services are not proxied.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/serviceport.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/endpointslicecache.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/topology.go (CategorizeEndpoints)
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { endpointChain, serviceChains, servicePortNameString } from './names.js';

/** Default sticky time of sessionAffinity ClientIP: 3 hours (upstream DefaultClientIPServiceAffinitySeconds). */
export const DEFAULT_AFFINITY_SECONDS = 10800;

/** One port of one Service, as the proxier sees it. */
export interface ServicePortInfo {
  /** `ns/name[:port]` (upstream ServicePortName.String()) */
  name: string;
  /** `ns/name` */
  serviceKey: string;
  portName: string;
  /** lower-case: tcp, udp, sctp */
  protocol: string;
  clusterIP: string;
  port: number;
  /** 0 = none */
  nodePort: number;
  externalIPs: string[];
  /** status.loadBalancer.ingress[].ip (ipMode VIP) */
  loadBalancerVIPs: string[];
  loadBalancerSourceRanges: string[];
  /** sessionAffinity ClientIP: sticky seconds; 0 = no affinity */
  stickySeconds: number;
  internalPolicyLocal: boolean;
  externalPolicyLocal: boolean;
  chains: { svc: string; svl: string; ext: string; fw: string };
}

/** One endpoint of a service port. */
export interface EndpointInfo {
  ip: string;
  port: number;
  /** `ip:port` */
  endpoint: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** on this node (endpoint nodeName equals the proxy's node) */
  isLocal: boolean;
  /** KUBE-SEP-<hash> */
  chain: string;
}

const isIPv4 = (s: string | undefined): s is string => !!s && /^\d{1,3}(\.\d{1,3}){3}$/.test(s);

/** Whether the Service is proxied: has an IPv4 cluster IP (not None) and is not ExternalName. */
export function shouldProxy(svc: Service): boolean {
  return svc.spec?.type !== 'ExternalName' && isIPv4(svc.spec?.clusterIP);
}

/** The service ports of one Service (empty when it is not proxied). */
export function servicePorts(svc: Service): ServicePortInfo[] {
  if (!shouldProxy(svc)) return [];
  const ns = svc.metadata?.namespace ?? '';
  const n = svc.metadata?.name ?? '';
  const spec = svc.spec!;
  const lbVIPs = (svc.status?.loadBalancer?.ingress ?? []).filter((i) => isIPv4(i.ip) && (i.ipMode ?? 'VIP') === 'VIP').map((i) => i.ip!);
  const sticky = spec.sessionAffinity === 'ClientIP' ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_SECONDS) : 0;
  const externalIPs = (spec.externalIPs ?? []).filter(isIPv4);
  return (spec.ports ?? []).map((p) => {
    const name = servicePortNameString(ns, n, p.name);
    const protocol = (p.protocol ?? 'TCP').toLowerCase();
    const nodePort = spec.type === 'NodePort' || spec.type === 'LoadBalancer' ? (p.nodePort ?? 0) : 0;
    const externallyAccessible = nodePort !== 0 || lbVIPs.length > 0 || externalIPs.length > 0;
    return {
      name,
      serviceKey: `${ns}/${n}`,
      portName: p.name ?? '',
      protocol,
      clusterIP: spec.clusterIP!,
      port: p.port,
      nodePort,
      externalIPs,
      loadBalancerVIPs: spec.type === 'LoadBalancer' ? lbVIPs : [],
      loadBalancerSourceRanges: spec.type === 'LoadBalancer' ? (spec.loadBalancerSourceRanges ?? []) : [],
      stickySeconds: sticky,
      internalPolicyLocal: spec.internalTrafficPolicy === 'Local',
      externalPolicyLocal: externallyAccessible && spec.externalTrafficPolicy === 'Local',
      chains: serviceChains(name, protocol),
    };
  });
}

/** `ns/name` of the Service an EndpointSlice belongs to (label kubernetes.io/service-name), or undefined. */
export function sliceServiceKey(slice: EndpointSlice): string | undefined {
  const svc = slice.metadata?.labels?.['kubernetes.io/service-name'];
  return svc ? `${slice.metadata?.namespace ?? ''}/${svc}` : undefined;
}

/**
 * The endpoints of one service port from the Service's EndpointSlices: the slice port
 * with the same name and protocol, each endpoint's first address; duplicates (the same
 * `ip:port` in two slices) once; sorted by `ip:port` as upstream's cache does.
 */
export function endpointsFor(sp: ServicePortInfo, slices: Iterable<EndpointSlice>, nodeName: string): EndpointInfo[] {
  const out = new Map<string, EndpointInfo>();
  for (const s of slices) {
    if (s.addressType !== 'IPv4') continue;
    for (const port of s.ports ?? []) {
      if ((port.name ?? '') !== sp.portName || (port.protocol ?? 'TCP').toLowerCase() !== sp.protocol || !port.port) continue;
      for (const e of s.endpoints ?? []) {
        const ip = e.addresses?.[0];
        if (!isIPv4(ip)) continue;
        const endpoint = `${ip}:${port.port}`;
        if (out.has(endpoint)) continue;
        const ready = e.conditions?.ready ?? true;
        out.set(endpoint, {
          ip,
          port: port.port,
          endpoint,
          ready,
          serving: e.conditions?.serving ?? ready,
          terminating: e.conditions?.terminating ?? false,
          isLocal: !!e.nodeName && e.nodeName === nodeName,
          chain: endpointChain(sp.name, sp.protocol, endpoint),
        });
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0));
}

/** The endpoint sets a service port's rules use (upstream CategorizeEndpoints, without topology hints). */
export interface CategorizedEndpoints {
  /** endpoints for Cluster policy: ready ones, else serving+terminating ones */
  cluster: EndpointInfo[];
  /** endpoints for Local policy: ready local ones, else serving+terminating local ones */
  local: EndpointInfo[];
  /** union of the two: the KUBE-SEP chains to write */
  allReachable: EndpointInfo[];
  /** the Service has usable endpoints on some node */
  hasAny: boolean;
}

function usable(eps: EndpointInfo[]): EndpointInfo[] {
  const ready = eps.filter((e) => e.ready);
  return ready.length ? ready : eps.filter((e) => e.serving && e.terminating);
}

export function categorizeEndpoints(sp: ServicePortInfo, eps: EndpointInfo[]): CategorizedEndpoints {
  const externallyAccessible = sp.nodePort !== 0 || sp.loadBalancerVIPs.length > 0 || sp.externalIPs.length > 0;
  const usesCluster = !sp.internalPolicyLocal || (externallyAccessible && !sp.externalPolicyLocal);
  const usesLocal = sp.internalPolicyLocal || sp.externalPolicyLocal;
  const cluster = usesCluster ? usable(eps) : [];
  if (!usesLocal) return { cluster, local: [], allReachable: cluster, hasAny: cluster.length > 0 };
  const local = usable(eps.filter((e) => e.isLocal));
  const hasAny = cluster.length > 0 || local.length > 0 || eps.some((e) => e.ready || (e.serving && e.terminating));
  const all = new Map<string, EndpointInfo>();
  for (const e of [...cluster, ...local]) all.set(e.endpoint, e);
  return { cluster, local, allReachable: [...all.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : 1)), hasAny };
}
