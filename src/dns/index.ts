/**
 * Cluster DNS on a node: {@link ClusterRecords} kept current by Service and
 * EndpointSlice informers, served by a DNS server on the node's pod-network gateway
 * address (port 53), which the node announces on its Node object
 * (`k8ts.io/cluster-dns-address`) so that the kube-dns Service's endpoints point at
 * it. Pods reach it through the kube-dns ClusterIP (a service proxy's DNAT) or directly.
 * The simulated runtime asks the same records without a socket.
 *
 * @see https://github.com/kubernetes/dns/blob/master/docs/specification.md
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KObject } from '../api/resource.js';
import { Informer } from '../client/informer.js';
import { R, type Client } from '../client/types.js';
import { newForwarder, resolvConfServers } from './forward.js';
import { DNS_ADDRESS_ANNOTATION } from './kube-dns.js';
import { ClusterRecords } from './records.js';
import { startDNSServer, type DNSServer } from './server.js';

export { ClusterRecords, reverseName, type ZoneAnswer } from './records.js';
export { DNS_ADDRESS_ANNOTATION, defaultClusterDNS, ensureKubeDNSService, startKubeDNSEndpoints } from './kube-dns.js';

/** Informers feeding `records` (Services, EndpointSlices in every namespace). */
export function watchClusterRecords(client: Client, records: ClusterRecords): { synced(): Promise<void>; stop(): void } {
  const services = new Informer<Service & KObject>(client, R.services);
  const slices = new Informer<EndpointSlice & KObject>(client, R.endpointslices);
  services.addEventHandler({ add: (s) => records.setService(s), update: (_o, s) => records.setService(s), delete: (s) => records.deleteService(s) });
  slices.addEventHandler({
    add: (s) => records.setEndpointSlice(s),
    update: (o, s) => (records.deleteEndpointSlice(o), records.setEndpointSlice(s)),
    delete: (s) => records.deleteEndpointSlice(s),
  });
  services.start();
  slices.start();
  return {
    synced: async () => void (await Promise.all([services.waitForSync(), slices.waitForSync()])),
    stop() {
      services.stop();
      slices.stop();
    },
  };
}

export interface NodeDNSOptions {
  client: Client;
  nodeName: string;
  /** kubelet --cluster-domain */
  clusterDomain: string;
  /**
   * the address to listen on (the pod bridge's gateway); retried every `retryMs` while it
   * is not on this host yet (the CNI bridge appears with the first pod). Unset: no
   * listener (the records still serve the simulated runtime).
   */
  listenAddress?: string;
  /** default 53 */
  port?: number;
  /** upstream resolvers `ip:port` (default: the host's /etc/resolv.conf) */
  upstreams?: string[];
  /** default 1000 */
  retryMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

export interface NodeDNS {
  records: ClusterRecords;
  /** resolves once the listener is up (never, without a listenAddress) */
  listening(): Promise<{ address: string; port: number }>;
  stop(): Promise<void>;
}

/** Starts the node's cluster DNS (see the module doc). */
export function startNodeDNS(o: NodeDNSOptions): NodeDNS {
  const records = new ClusterRecords({ domain: o.clusterDomain });
  const watch = watchClusterRecords(o.client, records);
  const log = o.log ?? (() => undefined);
  const upstreams = (o.upstreams ?? resolvConfServers()).filter((s) => !o.listenAddress || !s.startsWith(`${o.listenAddress}:`));
  let server: DNSServer | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let onListen: (a: { address: string; port: number }) => void = () => undefined;
  const listening = new Promise<{ address: string; port: number }>((r) => (onListen = r));
  const bind = async (): Promise<void> => {
    if (stopped || !o.listenAddress) return;
    try {
      server = await startDNSServer({ records, forwarder: newForwarder(upstreams), address: o.listenAddress, port: o.port ?? 53 });
      if (stopped) return void (await server.close());
      onListen(server.address);
      await o.client
        .patch(R.nodes, '', o.nodeName, 'merge', { metadata: { annotations: { [DNS_ADDRESS_ANNOTATION]: o.listenAddress } } })
        .catch((e) => log('cluster DNS: could not annotate the node', e));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') log(`cluster DNS: listen on ${o.listenAddress}:${o.port ?? 53}`, e);
      timer = setTimeout(() => void bind(), o.retryMs ?? 1000);
    }
  };
  void bind();
  return {
    records,
    listening: () => listening,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      watch.stop();
      if (server) {
        await server.close();
        await o.client.patch(R.nodes, '', o.nodeName, 'merge', { metadata: { annotations: { [DNS_ADDRESS_ANNOTATION]: null } } }).catch(() => undefined);
      }
    },
  };
}
