/**
 * Containment: `unreachable` routes for the service CIDR and the cluster CIDR, installed
 * before any proxy rule or pod exists, so that no packet for a Service ClusterIP, a pod
 * IP or a podCIDR leaves the machine through the default route. More specific routes win
 * over them: the node's own bridge (its podCIDR), host-gw routes to other nodes'
 * podCIDRs; Service traffic is DNATed in PREROUTING/OUTPUT before routing, so a ClusterIP
 * with rules reaches its endpoint, and one without rules fails at once (ICMP host
 * unreachable to pods, EHOSTUNREACH to local processes) instead of leaking.
 *
 * Local processes see the route at connect() (before the nat OUTPUT hook), so on the
 * node itself (hostNetwork) ClusterIPs are unreachable; pods are not affected.
 */
import { CommandError, type NetExec } from './iptables.js';

/** Adds `unreachable <cidr>` for each CIDR (already there is fine). @throws CommandError */
export async function installContainmentRoutes(exec: NetExec, cidrs: readonly string[]): Promise<void> {
  for (const cidr of cidrs) {
    try {
      await exec.run('ip', ['route', 'add', 'unreachable', cidr]);
    } catch (e) {
      if (!(e instanceof CommandError) || !/File exists/i.test(e.stderr)) throw e;
    }
  }
}

/** Removes the containment routes (absent is fine). */
export async function removeContainmentRoutes(exec: NetExec, cidrs: readonly string[]): Promise<void> {
  for (const cidr of cidrs) await exec.run('ip', ['route', 'del', 'unreachable', cidr]).catch(() => undefined);
}
