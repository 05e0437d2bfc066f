/**
 * Containment: `unreachable` routes for the service CIDR and the cluster CIDR, installed
 * before any proxy rule or pod exists, so that no packet for a Service ClusterIP, a pod
 * IP or a podCIDR leaves the machine through the default route. More specific routes win
 * over them: the node's own bridge (its podCIDR), host-gw routes to other nodes'
 * podCIDRs; Service traffic is DNATed in PREROUTING/OUTPUT before routing, so a ClusterIP
 * with rules reaches its endpoint, and one without rules fails at once (ICMP host
 * unreachable to pods, EHOSTUNREACH to local processes) instead of leaking.
 *
 * Local processes see the route at connect() (before the nat OUTPUT hook): for them
 * {@link installLocalServiceAccess} adds a policy route so that hostNetwork processes
 * reach ClusterIPs through the OUTPUT rules, still without a packet leaving.
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

/** The routing table (and `ip rule` priority) that lets the node's own processes reach ClusterIPs. */
export const LOCAL_SERVICE_TABLE = 75;
/** The filter chain that refuses new connections to a ClusterIP no rule took (jumped to from OUTPUT). */
export const SERVICE_CIDR_GUARD_CHAIN = 'K8TS-SERVICE-CIDR-GUARD';

const ruleSpec = (serviceCIDR: string): string[] => ['iif', 'lo', 'to', serviceCIDR, 'lookup', String(LOCAL_SERVICE_TABLE), 'priority', String(LOCAL_SERVICE_TABLE)];
const guardJump = ['-m', 'comment', '--comment', 'k8ts: ClusterIPs no rule took', '-j', SERVICE_CIDR_GUARD_CHAIN];

/**
 * Lets hostNetwork processes reach ClusterIPs through the nat OUTPUT rules (as upstream,
 * where the host reaches them through OUTPUT) without giving up containment: a policy
 * rule for locally generated packets only (`ip rule iif lo to <serviceCIDR> lookup 75`)
 * finds `<serviceCIDR> dev lo src <srcIP>` in table 75, so connect() proceeds with the
 * node's address as source, the OUTPUT DNAT sends the packet to an endpoint and the kernel
 * routes it again by its new destination. A new connection no rule took is refused in the
 * filter OUTPUT chain (`K8TS-SERVICE-CIDR-GUARD`: TCP gets a reset — `Connection refused` at
 * once —, anything else is dropped); whatever passed would only loop back on `lo`. Pods
 * (forwarded packets) still meet the `unreachable` route. Idempotent.
 * @throws CommandError
 */
export async function installLocalServiceAccess(exec: NetExec, serviceCIDR: string, srcIP: string): Promise<void> {
  await exec.run('ip', ['route', 'replace', serviceCIDR, 'dev', 'lo', 'src', srcIP, 'table', String(LOCAL_SERVICE_TABLE)]);
  const rules = await exec.run('ip', ['-4', 'rule', 'show', 'priority', String(LOCAL_SERVICE_TABLE)]);
  if (!rules.includes(`to ${serviceCIDR} `) && !rules.includes(`to ${serviceCIDR}\n`)) await exec.run('ip', ['-4', 'rule', 'add', ...ruleSpec(serviceCIDR)]);
  try {
    await exec.run('iptables', ['-w', '5', '-t', 'filter', '-N', SERVICE_CIDR_GUARD_CHAIN]);
  } catch (e) {
    if (!(e instanceof CommandError) || !/exists/i.test(e.stderr)) throw e;
  }
  await exec.run('iptables', ['-w', '5', '-t', 'filter', '-F', SERVICE_CIDR_GUARD_CHAIN]);
  // an ICMP error could not come back (its source would be the ClusterIP, no address of the node): TCP gets a reset, the rest is dropped
  const guard = ['-w', '5', '-t', 'filter', '-A', SERVICE_CIDR_GUARD_CHAIN, '-d', serviceCIDR, '-m', 'conntrack', '--ctstate', 'NEW'];
  await exec.run('iptables', [...guard, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset']);
  await exec.run('iptables', [...guard, '-j', 'DROP']);
  const has = await exec.run('iptables', ['-w', '5', '-t', 'filter', '-C', 'OUTPUT', ...guardJump]).then(
    () => true,
    () => false,
  );
  if (!has) await exec.run('iptables', ['-w', '5', '-t', 'filter', '-I', 'OUTPUT', '1', ...guardJump]);
}

/** Removes what {@link installLocalServiceAccess} added (absent is fine). */
export async function removeLocalServiceAccess(exec: NetExec, serviceCIDR: string): Promise<void> {
  await exec.run('ip', ['-4', 'rule', 'del', ...ruleSpec(serviceCIDR)]).catch(() => undefined);
  await exec.run('ip', ['route', 'flush', 'table', String(LOCAL_SERVICE_TABLE)]).catch(() => undefined);
  await exec.run('iptables', ['-w', '5', '-t', 'filter', '-D', 'OUTPUT', ...guardJump]).catch(() => undefined);
  await exec.run('iptables', ['-w', '5', '-t', 'filter', '-F', SERVICE_CIDR_GUARD_CHAIN]).catch(() => undefined);
  await exec.run('iptables', ['-w', '5', '-t', 'filter', '-X', SERVICE_CIDR_GUARD_CHAIN]).catch(() => undefined);
}
