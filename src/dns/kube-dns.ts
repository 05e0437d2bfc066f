/**
 * The `kube-system/kube-dns` Service and its endpoints. Upstream clusters run CoreDNS
 * pods behind this Service (label `k8s-app=kube-dns`, ClusterIP the kubelets'
 * `--cluster-dns`, 10.96.0.10 with kubeadm's default service CIDR); k8ts answers DNS
 * in each node's agent instead, so the Service has no selector and one EndpointSlice,
 * `kube-dns-k8ts`, kept by {@link startKubeDNSEndpoints} from the Nodes that announce a
 * DNS listener with the {@link DNS_ADDRESS_ANNOTATION} annotation (a ready endpoint per
 * Ready node). A service proxy then sends `10.96.0.10:53` to those listeners.
 *
 * @see https://github.com/coredns/deployment/blob/master/kubernetes/coredns.yaml.sed (the Service upstream deploys)
 * @see https://github.com/k3s-io/k3s/blob/master/manifests/coredns.yaml
 */
import type { Node, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KObject } from '../api/resource.js';
import { isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import { Informer } from '../client/informer.js';
import { R, type Client } from '../client/types.js';

/** A Node annotation: the address its agent's DNS server listens on (port 53, UDP and TCP). */
export const DNS_ADDRESS_ANNOTATION = 'k8ts.io/cluster-dns-address';
export const KUBE_DNS_SLICE = 'kube-dns-k8ts';
/** `endpointslice.kubernetes.io/managed-by` of the slice (the endpointslice controller leaves it alone) */
export const KUBE_DNS_MANAGER = 'cluster-dns.k8ts.io';

/** The tenth address of the service CIDR (10.96.0.0/12 → 10.96.0.10), kubeadm's and k3s's DNS ClusterIP. */
export function defaultClusterDNS(serviceCIDR: string): string {
  const [ip] = serviceCIDR.split('/');
  const o = ip!.split('.').map(Number);
  const n = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) + 10;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The kube-dns Service with ClusterIP `clusterIP`, as upstream's CoreDNS manifest defines it (no selector here). */
export function kubeDNSService(clusterIP: string): Service & KObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kube-dns',
      namespace: 'kube-system',
      labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
      annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
      ],
    },
  };
}

/**
 * Creates `kube-system/kube-dns` unless it exists (an existing one is left alone).
 * @throws the API error of a failed create (e.g. 422 when the ClusterIP is outside the service CIDR)
 */
export async function ensureKubeDNSService(client: Client, clusterIP: string): Promise<void> {
  try {
    await client.get(R.services, 'kube-system', 'kube-dns');
    return;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    await client.create(R.services, 'kube-system', kubeDNSService(clusterIP));
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

const ready = (n: Node): boolean => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/** The slice for the announcing nodes (sorted by name, so an unchanged set gives an equal slice). */
export function kubeDNSSlice(nodes: Node[]): EndpointSlice & KObject {
  const eps = nodes
    .filter((n) => n.metadata?.annotations?.[DNS_ADDRESS_ANNOTATION])
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))
    .map((n) => {
      const r = ready(n);
      return { addresses: [n.metadata!.annotations![DNS_ADDRESS_ANNOTATION]!], conditions: { ready: r, serving: r, terminating: false }, nodeName: n.metadata!.name };
    });
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: KUBE_DNS_SLICE,
      namespace: 'kube-system',
      labels: { 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': KUBE_DNS_MANAGER },
    },
    addressType: 'IPv4',
    endpoints: eps,
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
    ],
  };
}

/**
 * Keeps the kube-dns EndpointSlice equal to {@link kubeDNSSlice} of the current Nodes
 * (written on every node change that alters it). Runs in the control plane.
 */
export function startKubeDNSEndpoints(client: Client, log: (m: string, e?: unknown) => void = () => undefined): { stop(): void } {
  const nodes = new Informer<Node & KObject>(client, R.nodes);
  let last = '';
  let running = false;
  let again = false;
  const sync = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const want = kubeDNSSlice(nodes.list());
        const key = JSON.stringify(want.endpoints);
        if (key === last) continue;
        try {
          const cur = await client.get<EndpointSlice & KObject>(R.endpointslices, 'kube-system', KUBE_DNS_SLICE);
          await client.update(R.endpointslices, 'kube-system', { ...want, metadata: { ...want.metadata, resourceVersion: cur.metadata?.resourceVersion } });
        } catch (e) {
          if (!isNotFound(e)) throw e;
          await client.create(R.endpointslices, 'kube-system', want);
        }
        last = key;
      } while (again);
    } catch (e) {
      log('kube-dns endpoints: sync failed', e);
      again = false;
      setTimeout(() => void sync(), 1000).unref?.();
    } finally {
      running = false;
    }
  };
  nodes.addEventHandler({ add: () => void sync(), update: () => void sync(), delete: () => void sync() });
  nodes.start();
  return { stop: () => nodes.stop() };
}
