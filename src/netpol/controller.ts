/**
 * The node's NetworkPolicy controller (kube-router's netpol controller in k3s): informers
 * on Pods, Namespaces, NetworkPolicies and the kube-dns EndpointSlices feed a debounced
 * sync that computes the filters of this node's pod-network pods ({@link PolicyView})
 * and hands them to an applier (iptables on real containers, the simulated network's
 * table otherwise). A change is applied within `debounceMs` (default 100 ms) plus the
 * apply's own time; an unchanged result is not re-applied.
 *
 * @see https://github.com/cloudnativelabs/kube-router/blob/master/pkg/controllers/netpol/network_policy_controller.go
 */
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { KObject } from '../api/resource.js';
import { Informer } from '../client/informer.js';
import { R, type Client, type ResourceRef } from '../client/types.js';
import { flowAllowed, PolicyView, type Endpoint, type PodFilter } from './policy.js';

/** networking.k8s.io/v1 networkpolicies */
export const NETWORK_POLICIES: ResourceRef = { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true };

/** What the controller needs of the enforcement. */
export interface FilterApplier {
  /** Makes `filters` the enforced set (replacing the previous one). */
  apply(filters: PodFilter[]): Promise<void>;
}

/** A pod as a policy endpoint (its IP and declared container ports). */
export function podEndpoint(p: Pod): Endpoint {
  return {
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    ip: p.status?.podIP,
    labels: p.metadata?.labels ?? {},
    ports: (p.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).filter((x) => x.name).map((x) => ({ name: x.name!, port: x.containerPort, protocol: x.protocol ?? 'TCP' }))),
  };
}

/** Pods that take part in pod networking: an IP, not hostNetwork, not finished. */
export function onPodNetwork(p: Pod): boolean {
  return !!p.status?.podIP && !p.spec?.hostNetwork && p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed' && !p.metadata?.deletionTimestamp;
}

/**
 * The node DNS servers as policy endpoints: CoreDNS pods carry `k8s-app: kube-dns` in
 * kube-system with ports `dns` (53/UDP) and `dns-tcp` (53/TCP), so policies written for
 * upstream clusters ("allow egress to kube-dns") allow k8ts's DNS servers too.
 */
export function dnsEndpoints(slices: EndpointSlice[]): Endpoint[] {
  return slices.flatMap((s) =>
    (s.endpoints ?? []).flatMap((e) =>
      (e.addresses ?? []).map((ip) => ({
        namespace: 'kube-system',
        name: `kube-dns@${e.nodeName ?? ip}`,
        ip,
        labels: { 'k8s-app': 'kube-dns' },
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, protocol: 'TCP' },
        ],
      })),
    ),
  );
}

export interface NetworkPolicyControllerOptions {
  client: Client;
  nodeName: string;
  applier: FilterApplier;
  debounceMs?: number;
  log?: (msg: string, err?: unknown) => void;
  /** told after each applied sync: how long it took from the first change it covers (ms) */
  onSync?: (ms: number, filters: PodFilter[]) => void;
}

export class NetworkPolicyController {
  private readonly pods: Informer<Pod & KObject>;
  private readonly namespaces: Informer<Namespace & KObject>;
  private readonly policies: Informer<NetworkPolicy & KObject>;
  private readonly dnsSlices: Informer<EndpointSlice & KObject>;
  private timer?: NodeJS.Timeout;
  private dirtySince = 0;
  private running?: Promise<void>;
  private last = '';
  private stopped = false;

  constructor(private readonly o: NetworkPolicyControllerOptions) {
    this.pods = new Informer(o.client, R.pods);
    this.namespaces = new Informer(o.client, R.namespaces);
    this.policies = new Informer(o.client, NETWORK_POLICIES);
    this.dnsSlices = new Informer(o.client, R.endpointslices, { namespace: 'kube-system', labelSelector: 'kubernetes.io/service-name=kube-dns' });
    const kick = () => this.kick();
    for (const i of [this.pods, this.namespaces, this.policies, this.dnsSlices] as Informer<KObject>[]) i.addEventHandler({ add: kick, update: kick, delete: kick });
  }

  /** Starts the informers; resolves after the first sync is applied. */
  async start(): Promise<void> {
    for (const i of [this.pods, this.namespaces, this.policies, this.dnsSlices] as Informer<KObject>[]) i.start();
    await Promise.all([this.pods.waitForSync(), this.namespaces.waitForSync(), this.policies.waitForSync(), this.dnsSlices.waitForSync()]);
    this.kick();
    await this.flush();
  }

  /** Resolves once no sync is pending or running. */
  async flush(): Promise<void> {
    while (this.timer || this.running) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.track(this.running ?? Promise.resolve());
      }
      await this.running;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const i of [this.pods, this.namespaces, this.policies, this.dnsSlices] as Informer<KObject>[]) i.stop();
  }

  private cache?: { generation: number; view: PolicyView; byIP: Map<string, Endpoint> };
  private generation = 0;

  /**
   * Whether NetworkPolicies let the pod at `from` open `to:port/protocol` (any pod of the
   * cluster, for the SIMULATED network): evaluated on the informers' current state, with
   * `extra` endpoints (e.g. the kube-dns ClusterIP standing for the DNS server) as peers.
   */
  allowed(from: string, to: string, port: number, protocol: string, extra: Endpoint[] = []): boolean {
    if (!this.cache || this.cache.generation !== this.generation) {
      const pods = this.pods.list().filter(onPodNetwork).map(podEndpoint);
      const peers = [...pods, ...dnsEndpoints(this.dnsSlices.list()), ...extra];
      const view = new PolicyView(
        peers,
        this.namespaces.list().map((n) => ({ name: n.metadata?.name ?? '', labels: n.metadata?.labels ?? {} })),
      );
      this.cache = { generation: this.generation, view, byIP: new Map(pods.map((p) => [p.ip!, p])) };
    }
    const { view, byIP } = this.cache;
    const policies = this.policies.list();
    const src = byIP.get(from);
    const dst = byIP.get(to);
    const [fs] = src ? view.filters([src], policies) : [];
    const [fd] = dst ? view.filters([dst], policies) : [];
    return flowAllowed(fs?.pod === src ? fs : undefined, fd?.pod === dst ? fd : undefined, from, to, port, protocol);
  }

  /** The filters for the current state of the informers. */
  compute(): PodFilter[] {
    const pods = this.pods.list().filter(onPodNetwork);
    const view = new PolicyView(
      [...pods.map(podEndpoint), ...dnsEndpoints(this.dnsSlices.list())],
      this.namespaces.list().map((n) => ({ name: n.metadata?.name ?? '', labels: n.metadata?.labels ?? {} })),
    );
    const local = pods.filter((p) => p.spec?.nodeName === this.o.nodeName).map(podEndpoint);
    return view.filters(local, this.policies.list());
  }

  private kick(): void {
    this.generation++;
    if (this.stopped) return;
    if (!this.dirtySince) this.dirtySince = Date.now();
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.track(this.running ?? Promise.resolve());
    }, this.o.debounceMs ?? 100);
  }

  /**
   * Runs a sync after `prev` and records it as the running one until it settles. The
   * promise clears itself, never the sync: a sync that finishes without awaiting would
   * otherwise clear `running` before it is assigned and leave `flush` spinning.
   */
  private track(prev: Promise<void>): void {
    const p: Promise<void> = prev
      .then(() => this.sync())
      .finally(() => {
        if (this.running === p) this.running = undefined;
      });
    this.running = p;
  }

  private async sync(): Promise<void> {
    const since = this.dirtySince;
    this.dirtySince = 0;
    try {
      const filters = this.compute();
      const key = JSON.stringify(filters);
      if (key !== this.last) {
        await this.o.applier.apply(filters);
        this.last = key;
        this.o.onSync?.(Date.now() - since, filters);
      }
    } catch (e) {
      this.o.log?.('network policy: sync failed', e);
      this.last = '';
      if (!this.stopped) setTimeout(() => this.kick(), 1000).unref?.();
    }
  }
}
