/**
 * The routes controller of a node (flannel's host-gw backend, k3s' `--flannel-backend
 * host-gw`): it announces itself on its Node with flannel's annotations (backend-type
 * host-gw, public-ip = its InternalIP), and a Node informer feeds a sync (debounced 100 ms, and every 30 s to repair
 * what someone else removed) that makes this node's main routing table hold exactly
 * `<other node's podCIDR> via <its public IP> dev <iface> proto 75` for every other
 * announcing node on a directly attached subnet, with `ip route replace` / `ip route del`. So a pod
 * reaches a pod on another node by its pod IP, and Service traffic DNATed to an endpoint
 * on another node follows the same route. The routes are more specific than the
 * containment `unreachable` route of the cluster CIDR (src/proxy/containment.ts), which
 * keeps catching pod IPs of no node. Stopping leaves the routes (as flannel does);
 * {@link removeHostGatewayRoutes} (`k8ts reset`) deletes them.
 *
 * @see https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md#host-gw
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { Informer } from '../client/informer.js';
import { R, type Client } from '../client/types.js';
import { NetExec } from '../proxy/iptables.js';
import { desiredRoutes, hostGatewayAnnotations, nodeAddress, parseAddresses, parseRoutes, planRoutes, PUBLIC_IP_ANNOTATION, ROUTE_PROTOCOL, type PodRoute } from './routes.js';

export interface HostGatewayOptions {
  client: Client;
  nodeName: string;
  /** `--cluster-cidr`: only podCIDRs inside it are routed */
  clusterCIDR: string;
  /** the address other nodes route this node's podCIDR to (default: its InternalIP) */
  publicIP?: string;
  /** runs ip(8) (default: in this process's network namespace) */
  exec?: NetExec;
  /** repair period, ms (default 30 000) */
  resyncMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

/** The host-gw routes controller (see the module doc). */
export class HostGatewayRoutes {
  private readonly nodes: Informer<Node & KObject>;
  private readonly exec: NetExec;
  private readonly log: (msg: string, err?: unknown) => void;
  private timer?: NodeJS.Timeout;
  private periodic?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private lastSkipped = '';
  /** syncs finished so far (tests wait on it) */
  syncs = 0;

  constructor(private readonly o: HostGatewayOptions) {
    this.nodes = new Informer<Node & KObject>(o.client, R.nodes);
    this.exec = o.exec ?? new NetExec();
    this.log = o.log ?? ((m, e) => console.error(`host-gw: ${m}`, e instanceof Error ? e.message : (e ?? '')));
  }

  /** Starts the Node informer; resolves after the first sync. */
  async start(): Promise<void> {
    const kick = (): void => this.request();
    this.nodes.addEventHandler({ add: kick, update: kick, delete: kick });
    this.nodes.start();
    await this.nodes.waitForSync();
    this.periodic = setInterval(kick, this.o.resyncMs ?? 30_000);
    this.periodic.unref?.();
    await this.syncNow();
  }

  stop(): void {
    this.stopped = true;
    this.nodes.stop();
    if (this.timer) clearTimeout(this.timer);
    if (this.periodic) clearInterval(this.periodic);
  }

  /** Puts flannel's annotations on this node (public IP = its InternalIP) once the kubelet has posted the address. */
  private async announce(): Promise<void> {
    const self = this.nodes.getByName('', this.o.nodeName);
    const ip = this.o.publicIP ?? (self && nodeAddress(self, 'InternalIP'));
    if (!self || !ip || self.metadata?.annotations?.[PUBLIC_IP_ANNOTATION] === ip) return;
    await this.o.client.patch(R.nodes, '', this.o.nodeName, 'merge', { metadata: { annotations: hostGatewayAnnotations(ip) } });
  }

  private request(): void {
    if (this.stopped || this.timer || !this.nodes.hasSynced()) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.syncNow();
    }, 100);
    this.timer.unref?.();
  }

  /** One sync now (a sync already running is followed by one more). */
  syncNow(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.sync();
        } catch (e) {
          this.log('sync failed', e);
        }
        this.syncs++;
      } while (this.again && !this.stopped);
      this.running = undefined;
    })();
    return this.running;
  }

  private async sync(): Promise<void> {
    await this.announce();
    const local = parseAddresses(await this.exec.run('ip', ['-j', '-4', 'addr', 'show']));
    const { routes, skipped } = desiredRoutes(this.nodes.list(), this.o.nodeName, local, this.o.clusterCIDR);
    const why = skipped.map((s) => `node ${s.node}: ${s.reason}`).join('; ');
    if (why && why !== this.lastSkipped) this.log(`no route for ${why}`);
    this.lastSkipped = why;
    const current = await currentRoutes(this.exec);
    const { replace, remove } = planRoutes(current, routes);
    for (const r of remove) await this.exec.run('ip', ['route', 'del', r.dst, 'proto', String(ROUTE_PROTOCOL)]).catch((e) => this.log(`removing the route to ${r.dst}`, e));
    for (const r of replace) await this.exec.run('ip', ['route', 'replace', r.dst, 'via', r.gateway, 'dev', r.dev, 'proto', String(ROUTE_PROTOCOL)]);
  }
}

/** This controller's routes in the main table. @throws CommandError */
export async function currentRoutes(exec: NetExec): Promise<PodRoute[]> {
  return parseRoutes(await exec.run('ip', ['-j', '-4', 'route', 'show', 'proto', String(ROUTE_PROTOCOL)]));
}

/** Deletes every host-gw route of this controller (`k8ts reset`). */
export async function removeHostGatewayRoutes(exec: NetExec = new NetExec()): Promise<void> {
  await exec.run('ip', ['-4', 'route', 'flush', 'proto', String(ROUTE_PROTOCOL)]).catch(() => undefined);
}
