/**
 * The iptables-restore input of one full sync, built as kube-proxy's iptables mode
 * builds it: the filter table (KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-FORWARD,
 * KUBE-NODEPORTS, KUBE-PROXY-FIREWALL) and the nat table (KUBE-SERVICES,
 * KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ and per service port KUBE-SVC-,
 * KUBE-SVL-, KUBE-EXT-, KUBE-FW-, per endpoint KUBE-SEP-), every chain named in the
 * input is flushed and rewritten (`iptables-restore --noflush` leaves other chains
 * alone), and chains of services that went away are deleted (`-X`). A pure function:
 * the proxier feeds it state and applies the text.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/iptables/proxier.go (syncProxyRules, writeServiceToEndpointRules)
 */
import { categorizeEndpoints, type EndpointInfo, type ServicePortInfo } from './model.js';
import {
  isServiceChainName,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  MASQUERADE_MARK,
} from './names.js';

/** Above this many endpoints the per-endpoint comments are left out (upstream largeClusterEndpointsThreshold). */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

export interface RuleOptions {
  /**
   * The cluster CIDR (`--cluster-cidr`, detect-local-mode ClusterCIDR): traffic from it is
   * pod traffic. Without it, off-cluster traffic to cluster IPs is not masqueraded.
   */
  clusterCIDR?: string;
  /** `--masquerade-all`: SNAT all traffic to cluster IPs */
  masqueradeAll?: boolean;
  /**
   * `--nodeport-addresses` resolved to this node's addresses; undefined = every local
   * address (`-m addrtype --dst-type LOCAL`).
   */
  nodePortIPs?: string[];
  /** `--iptables-localhost-nodeports` (default true): NodePorts answer on 127.0.0.0/8 */
  localhostNodePorts?: boolean;
  /** MASQUERADE with `--random-fully` */
  randomFully?: boolean;
  /** nat chains that exist now (iptables-save): stale service chains among them are deleted */
  existingNatChains?: Iterable<string>;
  /**
   * A partial sync: only these Services' (`ns/name`) own chains (KUBE-SVC/SVL/EXT/FW/SEP)
   * are written; the top-level chains are always written whole. Undefined = full sync.
   */
  onlyServices?: ReadonlySet<string>;
}

/** One service port and all of its endpoints. */
export interface ServicePortState {
  info: ServicePortInfo;
  endpoints: EndpointInfo[];
}

export interface RuleSet {
  /** the iptables-restore input (filter then nat) */
  text: string;
  filterRules: number;
  /** nat rules written */
  natRules: number;
  /** nat rules kube-proxy owns after this sync (written + left in place by a partial sync) */
  natRulesTotal: number;
  natChains: number;
  deletedChains: number;
  /** service ports with a Local policy and no local endpoint, per traffic policy */
  noLocalEndpoints: { internal: number; external: number };
  /** how many endpoint chains were written */
  endpointChains: number;
}

const q = (s: string): string => `"${s}"`;
const chainLine = (c: string): string => `:${c} - [0:0]`;

/** The probability text of the i-th of n random rules (upstream computeProbability: %0.10f of 1/n). */
export function probability(n: number): string {
  return (1 / n).toFixed(10);
}

/** Builds the restore input for `services` (already filtered to proxied Services). */
export function buildRules(services: ServicePortState[], o: RuleOptions = {}): RuleSet {
  const filterChains: string[] = [];
  const filterRules: string[] = [];
  const natChains: string[] = [];
  const natRules: string[] = [];
  const localhostNodePorts = o.localhostNodePorts ?? true;
  for (const c of [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL]) filterChains.push(chainLine(c));
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) natChains.push(chainLine(c));

  const mark = `${MASQUERADE_MARK}/${MASQUERADE_MARK}`;
  natRules.push(`-A ${KUBE_POSTROUTING} -m mark ! --mark ${mark} -j RETURN`);
  natRules.push(`-A ${KUBE_POSTROUTING} -j MARK --xor-mark ${MASQUERADE_MARK}`);
  natRules.push(`-A ${KUBE_POSTROUTING} -m comment --comment ${q('kubernetes service traffic requiring SNAT')} -j MASQUERADE${o.randomFully ? ' --random-fully' : ''}`);
  natRules.push(`-A ${KUBE_MARK_MASQ} -j MARK --or-mark ${MASQUERADE_MARK}`);
  if (localhostNodePorts) {
    filterChains.push(chainLine(KUBE_FIREWALL));
    filterRules.push(
      `-A ${KUBE_FIREWALL} -m comment --comment ${q('block incoming localnet connections')} -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
  }

  const active = new Set<string>();
  const skippedChains: string[] = [];
  const skippedRules: string[] = [];
  const totalEndpoints = services.reduce((n, s) => n + s.endpoints.length, 0);
  const large = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  /** a comment as upstream's appendServiceCommentLocked adds it (text as written: quoted by the caller when it has spaces) */
  const comment = (text: string): string => (large ? '' : ` -m comment --comment ${text}`);
  const noLocal = { internal: 0, external: 0 };
  let endpointChains = 0;

  for (const { info: svc, endpoints } of services) {
    const p = svc.protocol;
    const name = svc.name;
    const { cluster, local, allReachable, hasAny } = categorizeEndpoints(svc, endpoints);
    const clusterChain = svc.chains.svc;
    const localChain = svc.chains.svl;
    const externallyAccessible = svc.nodePort !== 0 || svc.loadBalancerVIPs.length > 0 || svc.externalIPs.length > 0;
    const usesClusterChain = cluster.length > 0;
    const usesLocalChain = local.length > 0;
    const internalChain = svc.internalPolicyLocal ? localChain : clusterChain;
    const hasInternal = svc.internalPolicyLocal ? local.length > 0 : hasAny;
    const externalPolicyChain = svc.externalPolicyLocal ? localChain : clusterChain;
    const hasExternal = svc.externalPolicyLocal ? local.length > 0 : hasAny;
    const extChain = svc.chains.ext;
    const usesExtChain = hasAny && externallyAccessible;
    const usesFW = hasAny && svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
    const lbChain = usesFW ? svc.chains.fw : extChain;

    let internalFilter = '';
    let internalFilterComment = '';
    let externalFilter = '';
    let externalFilterComment = '';
    if (!hasAny) {
      internalFilter = externalFilter = 'REJECT';
      internalFilterComment = externalFilterComment = q(`${name} has no endpoints`);
    } else {
      if (!hasInternal) {
        internalFilter = 'DROP';
        internalFilterComment = q(`${name} has no local endpoints`);
        noLocal.internal++;
      }
      if (!hasExternal) {
        externalFilter = 'DROP';
        externalFilterComment = q(`${name} has no local endpoints`);
        noLocal.external++;
      }
    }
    const match = (ip: string, port: number): string => `-m ${p} -p ${p} -d ${ip} --dport ${port}`;

    // capture the cluster IP
    if (hasInternal) natRules.push(`-A ${KUBE_SERVICES} -m comment --comment ${q(`${name} cluster IP`)} ${match(svc.clusterIP, svc.port)} -j ${internalChain}`);
    else filterRules.push(`-A ${KUBE_SERVICES} -m comment --comment ${internalFilterComment} ${match(svc.clusterIP, svc.port)} -j ${internalFilter}`);

    // external IPs
    for (const ip of svc.externalIPs) {
      if (hasAny) natRules.push(`-A ${KUBE_SERVICES} -m comment --comment ${q(`${name} external IP`)} ${match(ip, svc.port)} -j ${extChain}`);
      if (!hasExternal) filterRules.push(`-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalFilterComment} ${match(ip, svc.port)} -j ${externalFilter}`);
    }
    // load-balancer ingress
    for (const ip of svc.loadBalancerVIPs) {
      if (hasAny) natRules.push(`-A ${KUBE_SERVICES} -m comment --comment ${q(`${name} loadbalancer IP`)} ${match(ip, svc.port)} -j ${lbChain}`);
      if (usesFW) filterRules.push(`-A ${KUBE_PROXY_FIREWALL} -m comment --comment ${q(`${name} traffic not accepted by ${svc.chains.fw}`)} ${match(ip, svc.port)} -j DROP`);
    }
    if (!hasExternal) {
      for (const ip of svc.loadBalancerVIPs)
        filterRules.push(`-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalFilterComment} ${match(ip, svc.port)} -j ${externalFilter}`);
    }
    // node ports
    if (svc.nodePort !== 0) {
      if (hasAny) natRules.push(`-A ${KUBE_NODEPORTS} -m comment --comment ${name} -m ${p} -p ${p} --dport ${svc.nodePort} -j ${extChain}`);
      if (!hasExternal) {
        filterRules.push(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalFilterComment} -m addrtype --dst-type LOCAL -m ${p} -p ${p} --dport ${svc.nodePort} -j ${externalFilter}`,
        );
      }
    }

    // unchanged services' own chains are left as they are in a partial sync (computed, not written: upstream skippedNatChains)
    const write = !o.onlyServices || o.onlyServices.has(svc.serviceKey);
    const svcChains = write ? natChains : skippedChains;
    const svcRules = write ? natRules : skippedRules;
    // internal traffic: masquerade what does not come from a pod
    if (hasInternal) {
      const args = `-m comment --comment ${q(`${name} cluster IP`)} ${match(svc.clusterIP, svc.port)}`;
      if (o.masqueradeAll) svcRules.push(`-A ${internalChain} ${args} -j ${KUBE_MARK_MASQ}`);
      else if (o.clusterCIDR) svcRules.push(`-A ${internalChain} ${args} ! -s ${o.clusterCIDR} -j ${KUBE_MARK_MASQ}`);
    }

    // external traffic
    if (usesExtChain) {
      svcChains.push(chainLine(extChain));
      active.add(extChain);
      if (!svc.externalPolicyLocal) {
        svcRules.push(`-A ${extChain} -m comment --comment ${q(`masquerade traffic for ${name} external destinations`)} -j ${KUBE_MARK_MASQ}`);
      } else {
        if (o.clusterCIDR) svcRules.push(`-A ${extChain} -m comment --comment ${q(`pod traffic for ${name} external destinations`)} -s ${o.clusterCIDR} -j ${clusterChain}`);
        svcRules.push(`-A ${extChain} -m comment --comment ${q(`masquerade LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`);
        svcRules.push(`-A ${extChain} -m comment --comment ${q(`route LOCAL traffic for ${name} external destinations`)} -m addrtype --src-type LOCAL -j ${clusterChain}`);
      }
      if (hasExternal) svcRules.push(`-A ${extChain} -j ${externalPolicyChain}`);
    }

    // firewall chain (loadBalancerSourceRanges)
    if (usesFW) {
      const fw = svc.chains.fw;
      svcChains.push(chainLine(fw));
      active.add(fw);
      const args = `-A ${fw} -m comment --comment ${q(`${name} loadbalancer IP`)}`;
      for (const cidr of svc.loadBalancerSourceRanges) svcRules.push(`${args} -s ${cidr} -j ${extChain}`);
      svcRules.push(`-A ${fw} -m comment --comment ${q(`other traffic to ${name} will be dropped by KUBE-PROXY-FIREWALL`)}`);
    }

    if (usesClusterChain) {
      svcChains.push(chainLine(clusterChain));
      active.add(clusterChain);
      writeServiceToEndpoints(svcRules, svc, clusterChain, cluster, comment);
    }
    if (usesLocalChain) {
      svcChains.push(chainLine(localChain));
      active.add(localChain);
      writeServiceToEndpoints(svcRules, svc, localChain, local, comment);
    }
    for (const ep of allReachable) {
      svcChains.push(chainLine(ep.chain));
      active.add(ep.chain);
      endpointChains++;
      const head = `-A ${ep.chain}${comment(name)}`;
      svcRules.push(`${head} -s ${ep.ip} -j ${KUBE_MARK_MASQ}`);
      const affinity = svc.stickySeconds > 0 ? ` -m recent --name ${ep.chain} --set` : '';
      svcRules.push(`${head}${affinity} -m ${p} -p ${p} -j DNAT --to-destination ${ep.endpoint}`);
    }
  }

  // stale service chains: flush (chain line) and delete
  let deletedChains = 0;
  for (const c of o.existingNatChains ?? []) {
    if (active.has(c) || !isServiceChainName(c)) continue;
    natChains.push(chainLine(c));
    natRules.push(`-X ${c}`);
    deletedChains++;
  }

  // the NodePort jump, last in KUBE-SERVICES
  const npComment = `-m comment --comment ${q('kubernetes service nodeports; NOTE: this must be the last rule in this chain')}`;
  if (!o.nodePortIPs) {
    natRules.push(`-A ${KUBE_SERVICES} ${npComment} -m addrtype --dst-type LOCAL${localhostNodePorts ? '' : ' ! -d 127.0.0.0/8'} -j ${KUBE_NODEPORTS}`);
  } else {
    for (const ip of o.nodePortIPs) {
      if (ip.startsWith('127.') && !localhostNodePorts) continue;
      natRules.push(`-A ${KUBE_SERVICES} ${npComment} -d ${ip} -j ${KUBE_NODEPORTS}`);
    }
  }

  filterRules.push(`-A ${KUBE_FORWARD} -m conntrack --ctstate INVALID -j DROP`);
  filterRules.push(`-A ${KUBE_FORWARD} -m comment --comment ${q('kubernetes forwarding rules')} -m mark --mark ${mark} -j ACCEPT`);
  filterRules.push(`-A ${KUBE_FORWARD} -m comment --comment ${q('kubernetes forwarding conntrack rule')} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`);

  const text = ['*filter', ...filterChains, ...filterRules, 'COMMIT', '*nat', ...natChains, ...natRules, 'COMMIT', ''].join('\n');
  return {
    text,
    filterRules: filterRules.length,
    natRules: natRules.length - deletedChains,
    natRulesTotal: natRules.length - deletedChains + skippedRules.length,
    natChains: natChains.length,
    deletedChains,
    noLocalEndpoints: noLocal,
    endpointChains,
  };
}

function writeServiceToEndpoints(out: string[], svc: ServicePortInfo, chain: string, eps: EndpointInfo[], comment: (t: string) => string): void {
  if (svc.stickySeconds > 0) {
    for (const ep of eps) {
      out.push(`-A ${chain}${comment(q(`${svc.name} -> ${ep.endpoint}`))} -m recent --name ${ep.chain} --rcheck --seconds ${svc.stickySeconds} --reap -j ${ep.chain}`);
    }
  }
  eps.forEach((ep, i) => {
    const stat = i < eps.length - 1 ? ` -m statistic --mode random --probability ${probability(eps.length - i)}` : '';
    out.push(`-A ${chain}${comment(q(`${svc.name} -> ${ep.endpoint}`))}${stat} -j ${ep.chain}`);
  });
}

/** The jump rules from the built-in chains into kube-proxy's (upstream iptablesJumpChains), in order. */
export interface JumpRule {
  table: 'filter' | 'nat';
  from: string;
  to: string;
  /** extra match arguments before the comment */
  extra: string[];
  comment: string;
}

export const JUMP_RULES: readonly JumpRule[] = [
  { table: 'filter', from: 'INPUT', to: KUBE_EXTERNAL_SERVICES, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes externally-visible service portals' },
  { table: 'filter', from: 'FORWARD', to: KUBE_EXTERNAL_SERVICES, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes externally-visible service portals' },
  { table: 'filter', from: 'INPUT', to: KUBE_NODEPORTS, extra: [], comment: 'kubernetes health check service ports' },
  { table: 'filter', from: 'FORWARD', to: KUBE_SERVICES, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes service portals' },
  { table: 'filter', from: 'OUTPUT', to: KUBE_SERVICES, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes service portals' },
  { table: 'filter', from: 'FORWARD', to: KUBE_FORWARD, extra: [], comment: 'kubernetes forwarding rules' },
  { table: 'filter', from: 'INPUT', to: KUBE_PROXY_FIREWALL, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes load balancer firewall' },
  { table: 'filter', from: 'OUTPUT', to: KUBE_PROXY_FIREWALL, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes load balancer firewall' },
  { table: 'filter', from: 'FORWARD', to: KUBE_PROXY_FIREWALL, extra: ['-m', 'conntrack', '--ctstate', 'NEW'], comment: 'kubernetes load balancer firewall' },
  { table: 'nat', from: 'OUTPUT', to: KUBE_SERVICES, extra: [], comment: 'kubernetes service portals' },
  { table: 'nat', from: 'PREROUTING', to: KUBE_SERVICES, extra: [], comment: 'kubernetes service portals' },
  { table: 'nat', from: 'POSTROUTING', to: KUBE_POSTROUTING, extra: [], comment: 'kubernetes postrouting rules' },
];

/** The kubelet's jumps into KUBE-FIREWALL (localhost NodePort guard). */
export const FIREWALL_JUMPS: readonly JumpRule[] = [
  { table: 'filter', from: 'INPUT', to: KUBE_FIREWALL, extra: [], comment: '' },
  { table: 'filter', from: 'OUTPUT', to: KUBE_FIREWALL, extra: [], comment: '' },
];
