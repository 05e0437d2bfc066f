/**
 * ServiceLB (k3s' built-in load balancer, "klipper-lb"): a Service of type LoadBalancer
 * without a `loadBalancerClass` gets `status.loadBalancer.ingress` with the addresses of
 * the nodes that serve it — every Ready node's ExternalIP, else InternalIP, sorted — and
 * each node's service proxy serves the Service on those addresses at the Service's port
 * (the load-balancer IP rules of kube-proxy; k3s does it with svclb pods holding
 * hostPorts). A Service that stops being a LoadBalancer has its ingress cleared. Off
 * with `--disable-servicelb`.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/cloudprovider/servicelb.go
 * @see https://docs.k3s.io/networking/networking-services#service-load-balancer
 */
import type { LoadBalancerIngress, Node, Service } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { R } from '../../client/types.js';
import type { RunningController, WorkloadControllerContext } from '../util/context.js';
import { ControllerLoop } from '../util/loop.js';

type Svc = Service & KObject;
type NodeObj = Node & KObject;

/** Whether ServiceLB handles the Service. */
export function isServiceLB(s: Service): boolean {
  return s.spec?.type === 'LoadBalancer' && !s.spec.loadBalancerClass;
}

/** The node address a LoadBalancer is served on: ExternalIP, else InternalIP (IPv4). */
export function nodeServingIP(n: Node): string | undefined {
  const addrs = n.status?.addresses ?? [];
  const v4 = (t: string) => addrs.find((a) => a.type === t && /^\d+\.\d+\.\d+\.\d+$/.test(a.address))?.address;
  return v4('ExternalIP') ?? v4('InternalIP');
}

/** What node `n` adds to a LoadBalancer's ingress: its serving IP while it is Ready and schedulable. */
function servingIPIfReady(n: Node): string | undefined {
  const ready = n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  return ready && !n.spec?.unschedulable ? nodeServingIP(n) : undefined;
}

/** The ingress list for the current nodes: Ready, schedulable nodes' serving IPs, sorted. */
export function ingressFor(nodes: Iterable<Node>): LoadBalancerIngress[] {
  const ips = new Set<string>();
  for (const n of nodes) {
    const ip = servingIPIfReady(n);
    if (ip) ips.add(ip);
  }
  return [...ips].sort().map((ip) => ({ ip, ipMode: 'VIP' }));
}

const sameIngress = (a: LoadBalancerIngress[] | undefined, b: LoadBalancerIngress[]): boolean =>
  JSON.stringify((a ?? []).map((i) => [i.ip, i.hostname, i.ipMode])) === JSON.stringify(b.map((i) => [i.ip, i.hostname, i.ipMode]));

export async function startServiceLBController(ctx: WorkloadControllerContext): Promise<RunningController> {
  const { client, informers } = ctx;
  const services = informers.get<Svc>(R.services);
  const nodes = informers.get<NodeObj>(R.nodes);
  const loop = new ControllerLoop({ name: 'service-lb-controller', clock: ctx.clock, workers: ctx.workers ?? 2, sync: (k) => sync(k) });
  /** services whose status this controller wrote (to clear it when they stop being LoadBalancers) */
  const owned = new Set<string>();

  services.addEventHandler({
    add: (s) => isServiceLB(s) && loop.enqueueObj(s),
    update: (o, s) => (isServiceLB(s) || isServiceLB(o)) && loop.enqueueObj(s),
  });
  const requeueAll = (): void => {
    for (const s of services.list()) if (isServiceLB(s)) loop.enqueueObj(s);
  };
  nodes.addEventHandler({
    add: () => requeueAll(),
    // only a change of this node's own part can change an ingress list: O(1) per node update
    // (lease-driven status updates of thousands of nodes would otherwise walk every node each time)
    update: (o, n) => servingIPIfReady(o) !== servingIPIfReady(n) && requeueAll(),
    delete: () => requeueAll(),
  });

  async function sync(key: string): Promise<void> {
    const s = services.get(key);
    if (!s) {
      owned.delete(key);
      return;
    }
    const want = isServiceLB(s) ? ingressFor(nodes.list()) : owned.has(key) ? [] : undefined;
    if (!want || sameIngress(s.status?.loadBalancer?.ingress, want)) return;
    const next: Svc = { ...s, status: { ...s.status, loadBalancer: want.length ? { ingress: want } : {} } };
    await client.update(R.services, s.metadata!.namespace!, next, { subresource: 'status' });
    if (isServiceLB(s)) owned.add(key);
    else owned.delete(key);
  }

  for (const inf of [services, nodes]) inf.start();
  await Promise.all([services.waitForSync(), nodes.waitForSync()]);
  loop.run();
  return { stop: () => loop.stop() };
}
