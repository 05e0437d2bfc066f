/**
 * The node's network services next to its kubelet: cluster DNS (records from Services
 * and EndpointSlices; on a node with a real pod network, a DNS server on the pod
 * bridge's gateway address, announced for the kube-dns endpoints, plus a DNAT of the
 * kube-dns ClusterIP to it when no service proxy does that) and NetworkPolicy
 * enforcement for the node's pods (iptables chains on a real pod network). Wiring only:
 * the work is in src/dns and src/netpol.
 */
import type { Client } from '../client/types.js';
import { ClusterRecords, startNodeDNS, watchClusterRecords } from '../dns/index.js';
import type { ClusterNetDeps } from '../cri/sim/cluster-http.js';
import { SimPodDirectory, type SimClusterNetwork } from '../cri/sim/cluster-net.js';
import type { Endpoint } from '../netpol/policy.js';
import { installDNSRedirect, type DNSRedirect } from '../dns/dnat.js';
import { NetworkPolicyController } from '../netpol/controller.js';
import { IptablesApplier } from '../netpol/iptables-applier.js';

export interface NodeNetworkOptions {
  client: Client;
  nodeName: string;
  podCIDR: string;
  /** the kubelet's --cluster-dns (first one is the kube-dns ClusterIP) */
  clusterDNS: string[];
  clusterDomain: string;
  /** the runtime gives pods real network namespaces on a bridge (containerd) */
  podNetwork: boolean;
  /** a service proxy sends the kube-dns ClusterIP to the listeners (default false: this installs its own DNAT) */
  serviceProxy?: boolean;
  /** upstream resolvers for other names (default: the host's /etc/resolv.conf) */
  upstreams?: string[];
  log?: (msg: string, err?: unknown) => void;
}

export interface NodeNetwork {
  /** the cluster DNS records (the simulated runtime asks them directly) */
  records: ClusterRecords;
  /** resolves once the DNS listener is up (real pod networks only) */
  dnsListening(): Promise<{ address: string; port: number }>;
  /** the NetworkPolicy controller (real pod networks only) */
  policies?: NetworkPolicyController;
  stop(): Promise<void>;
}

/** The first host address of a CIDR (10.42.0.0/24 → 10.42.0.1): the CNI bridge's gateway (host-local's default). */
export function gatewayOf(podCIDR: string): string {
  const [ip] = podCIDR.split('/');
  const o = ip!.split('.').map(Number);
  const n = (((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) + 1) >>> 0;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Starts the node's network services (see the module doc). */
export async function startNodeNetwork(o: NodeNetworkOptions): Promise<NodeNetwork> {
  const log = o.log ?? (() => undefined);
  const listen = o.podNetwork && o.podCIDR ? gatewayOf(o.podCIDR) : undefined;
  const dns = startNodeDNS({ client: o.client, nodeName: o.nodeName, clusterDomain: o.clusterDomain, listenAddress: listen, upstreams: o.upstreams, log });
  let redirect: DNSRedirect | undefined;
  if (listen && !o.serviceProxy && o.clusterDNS[0] && o.clusterDNS[0] !== listen) {
    try {
      redirect = await installDNSRedirect({ podCIDR: o.podCIDR, clusterDNS: o.clusterDNS[0], listen });
    } catch (e) {
      log('cluster DNS: could not redirect the kube-dns ClusterIP', e);
    }
  }
  let policies: NetworkPolicyController | undefined;
  let applier: IptablesApplier | undefined;
  if (o.podNetwork && o.podCIDR) {
    applier = new IptablesApplier(`${o.nodeName}/${o.podCIDR}`, o.podCIDR);
    policies = new NetworkPolicyController({ client: o.client, nodeName: o.nodeName, applier, log });
    // not awaited: a node without read access to policies still runs its pods (the controller retries)
    void policies.start().catch((e) => log('network policy: first sync failed', e));
  }
  return {
    records: dns.records,
    dnsListening: () => dns.listening(),
    policies,
    async stop() {
      policies?.stop();
      await applier?.remove().catch((e) => log('network policy: removing the chains', e));
      await redirect?.remove().catch((e) => log('cluster DNS: removing the redirect', e));
      await dns.stop();
    },
  };
}

/** The SIMULATED cluster network of a process's simulated nodes (one, shared by them all). */
export interface SimNetworkHandle {
  deps: ClusterNetDeps;
  stop(): Promise<void>;
}

/**
 * Starts the SIMULATED cluster network: names from the cluster DNS records, Service
 * ClusterIPs to their endpoints, NetworkPolicies evaluated per connection (the kube-dns
 * ClusterIP stands for the DNS server, labelled as CoreDNS pods are), pods of every
 * simulated runtime registered in one directory.
 */
export async function startSimClusterNetwork(o: {
  client: Client;
  nodeName: string;
  clusterDNS: string;
  clusterDomain: string;
  log?: (m: string, e?: unknown) => void;
}): Promise<SimNetworkHandle> {
  const records = new ClusterRecords({ domain: o.clusterDomain });
  const watch = watchClusterRecords(o.client, records);
  const policies = new NetworkPolicyController({ client: o.client, nodeName: o.nodeName, applier: { apply: async () => undefined }, log: o.log });
  void policies.start().catch((e) => o.log?.('simulated network policy: start failed', e));
  const dnsPeer: Endpoint = {
    namespace: 'kube-system',
    name: 'kube-dns',
    ip: o.clusterDNS,
    labels: { 'k8s-app': 'kube-dns' },
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
    ],
  };
  const net: SimClusterNetwork = {
    resolve: (name, conf) => records.resolve(name, conf),
    service: (ip, port, protocol) => records.serviceEndpoint(ip, port, protocol),
    allowed: (from, to, port, protocol) => policies.allowed(from, to, port, protocol, [dnsPeer]),
  };
  return {
    deps: { net, pods: new SimPodDirectory() },
    async stop() {
      policies.stop();
      watch.stop();
    },
  };
}
