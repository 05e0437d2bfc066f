/**
 * The service proxy of one node, as the agent runs it (k3s embeds kube-proxy the same
 * way): containment routes first, then the iptables proxier, and kube-proxy's /metrics
 * on `--kube-proxy-metrics-bind-address` (default 127.0.0.1:10249; a port in use is
 * reported and skipped). {@link resetServiceProxy} removes the rules and routes again
 * (`k8ts reset`, upstream `kube-proxy --cleanup`).
 *
 * @see https://kubernetes.io/docs/reference/command-line-tools-reference/kube-proxy/
 */
import { createServer, type Server } from 'node:http';
import type { Client } from '../client/types.js';
import { installContainmentRoutes, installLocalServiceAccess, removeContainmentRoutes, removeLocalServiceAccess } from './containment.js';
import { cleanupLeftovers, IPTables, NetExec } from './iptables.js';
import { Proxier } from './proxier.js';

/** The node flags of the service proxy (`k8ts server` / `k8ts agent`). */
export interface ServiceProxyFlags {
  /** `--disable-kube-proxy`: no proxy, no containment routes */
  disabled?: boolean;
  /** the cluster's pod CIDR (`--cluster-cidr`) */
  clusterCIDR: string;
  /** the Service CIDR (`--service-cluster-ip-range` / `--service-cidr`) */
  serviceCIDR: string;
  /** `--nodeport-addresses` CIDRs (default: all local addresses) */
  nodePortAddresses?: string[];
  /** `--masquerade-all` */
  masqueradeAll?: boolean;
  /** `--kube-proxy-metrics-bind-address` host:port; '' = none; default 127.0.0.1:10249 */
  metricsBindAddress?: string;
  /** `--flannel-backend` (k3s): `host-gw` (default) routes other nodes' podCIDRs via their addresses (src/hostgw); `none` leaves routing to the operator */
  flannelBackend?: 'host-gw' | 'none';
}

export interface RunningServiceProxy {
  proxier: Proxier;
  stop(): Promise<void>;
}

/** Containment routes, then the proxier (its first sync runs in the background). */
export async function startServiceProxy(o: {
  client: Client;
  nodeName: string;
  flags: ServiceProxyFlags;
  /** the node's address: the source of its own (hostNetwork) connections to ClusterIPs; none = they stay unreachable */
  nodeIP?: string;
  exec?: NetExec;
  log?: (msg: string, err?: unknown) => void;
}): Promise<RunningServiceProxy> {
  const exec = o.exec ?? new NetExec();
  const log = o.log ?? ((m: string, e?: unknown) => console.error(m, e instanceof Error ? e.message : (e ?? '')));
  await installContainmentRoutes(exec, [o.flags.serviceCIDR, o.flags.clusterCIDR]);
  if (o.nodeIP && o.nodeIP !== '127.0.0.1')
    await installLocalServiceAccess(exec, o.flags.serviceCIDR, o.nodeIP).catch((e) => log('kube-proxy: hostNetwork processes cannot reach ClusterIPs', e));
  // NodePorts on 127.0.0.1 need route_localnet (kube-proxy sets it for --iptables-localhost-nodeports)
  await exec.run('sysctl', ['-q', '-w', 'net.ipv4.conf.all.route_localnet=1']).catch((e) => log('kube-proxy: cannot set route_localnet', e));
  const proxier = new Proxier({
    client: o.client,
    nodeName: o.nodeName,
    exec,
    clusterCIDR: o.flags.clusterCIDR,
    nodePortAddresses: o.flags.nodePortAddresses,
    masqueradeAll: o.flags.masqueradeAll,
    log,
  });
  void proxier.start().catch((e) => log('kube-proxy: start failed', e));
  let metrics: Server | undefined;
  const bind = o.flags.metricsBindAddress ?? '127.0.0.1:10249';
  if (bind) {
    const i = bind.lastIndexOf(':');
    metrics = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      proxier.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': proxier.metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    metrics.on('error', (e) => log(`kube-proxy: metrics server on ${bind} not started`, e));
    metrics.listen(Number(bind.slice(i + 1)), bind.slice(0, i));
  }
  return {
    proxier,
    async stop() {
      proxier.stop();
      if (metrics) await new Promise<void>((r) => metrics!.close(() => r()));
    },
  };
}

/** Removes the proxy's iptables rules and chains, the containment routes and the hostNetwork ClusterIP access. */
export async function resetServiceProxy(o: { serviceCIDR: string; clusterCIDR: string; exec?: NetExec }): Promise<void> {
  const exec = o.exec ?? new NetExec();
  await cleanupLeftovers(new IPTables(exec));
  await removeLocalServiceAccess(exec, o.serviceCIDR);
  await removeContainmentRoutes(exec, [o.serviceCIDR, o.clusterCIDR]);
}
