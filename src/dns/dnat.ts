/**
 * A narrow DNAT that takes pods' DNS queries to the kube-dns ClusterIP (the kubelet's
 * `--cluster-dns`, e.g. 10.96.0.10:53) to this node's DNS listener, for nodes without a
 * service proxy that does it for every Service. Only packets from this node's podCIDR
 * are touched, in a chain of its own in the nat table (`K8TS-DNS-<hash>`, jumped to from
 * PREROUTING), which {@link DNSRedirect.remove} deletes again. With a service proxy the
 * kube-dns Service's EndpointSlice gives the same path (KUBE-SVC → KUBE-SEP → listener).
 */
import { createHash } from 'node:crypto';
import { deleteChains, deleteRule, ensureRule, restoreChains } from '../util/iptables.js';

export interface DNSRedirect {
  chain: string;
  remove(): Promise<void>;
}

/**
 * Installs the redirect `clusterDNS:53 → listen:53` (UDP and TCP) for packets from `podCIDR`.
 * @throws IptablesError when iptables refuses (not root, no nat table)
 */
export async function installDNSRedirect(o: { podCIDR: string; clusterDNS: string; listen: string }): Promise<DNSRedirect> {
  const chain = `K8TS-DNS-${createHash('sha256').update(`${o.podCIDR}/${o.clusterDNS}`).digest('hex').slice(0, 12).toUpperCase()}`;
  await restoreChains(
    'nat',
    [chain],
    ['udp', 'tcp'].map((p) => `-A ${chain} -p ${p} -m ${p} --dport 53 -m comment --comment "kube-system/kube-dns to the node's DNS" -j DNAT --to-destination ${o.listen}:53`),
  );
  const jump = ['-s', o.podCIDR, '-d', `${o.clusterDNS}/32`, '-j', chain];
  await ensureRule('nat', 'PREROUTING', jump);
  return {
    chain,
    async remove() {
      await deleteRule('nat', 'PREROUTING', jump);
      await deleteChains('nat', [chain]);
    },
  };
}
