/**
 * Enforces pod filters with iptables in the host's network namespace: the chains of
 * {@link renderRules} written in one `iptables-restore --noflush` (chains no longer
 * needed deleted in the same batch), the top chain jumped to from FORWARD (pod traffic
 * routed or, with br_netfilter, bridged through the node) and from INPUT for packets
 * from the node's podCIDR (pods talking to the node, e.g. its DNS server). `remove()`
 * takes the jumps out and deletes every chain of this agent's prefix.
 */
import { deleteChains, deleteRule, ensureRule, listChains, restoreChains } from '../util/iptables.js';
import type { FilterApplier } from './controller.js';
import { chainPrefix, renderRules, topChain } from './iptables-rules.js';
import type { PodFilter } from './policy.js';

export class IptablesApplier implements FilterApplier {
  readonly prefix: string;
  private readonly top: string;
  private jumps: [string, string[]][];
  private installed = false;

  /**
   * @param key identifies this agent's chains (node name and podCIDR)
   * @param podCIDR the node's pods, whose packets to the node itself are filtered in INPUT
   */
  constructor(key: string, podCIDR: string) {
    this.prefix = chainPrefix(key);
    this.top = topChain(this.prefix);
    const comment = ['-m', 'comment', '--comment', 'k8ts network policies'];
    this.jumps = [
      ['FORWARD', [...comment, '-j', this.top]],
      ['INPUT', ['-s', podCIDR, ...comment, '-j', this.top]],
    ];
  }

  async apply(filters: PodFilter[]): Promise<void> {
    const { chains, rules } = renderRules(this.prefix, filters);
    const stale = (await listChains('filter', this.prefix)).filter((c) => !chains.includes(c));
    await restoreChains('filter', chains, [...rules, ...stale.map((c) => `-F ${c}`), ...stale.map((c) => `-X ${c}`)]);
    if (!this.installed) {
      for (const [chain, spec] of this.jumps) await ensureRule('filter', chain, spec);
      this.installed = true;
    }
  }

  /** Removes the jumps and every chain of this prefix (also those of an earlier run). */
  async remove(): Promise<void> {
    for (const [chain, spec] of this.jumps) await deleteRule('filter', chain, spec);
    this.installed = false;
    await deleteChains('filter', await listChains('filter', this.prefix));
  }
}
