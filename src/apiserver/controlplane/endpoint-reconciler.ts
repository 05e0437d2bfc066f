/**
 * The lease endpoint reconciler of `default/kubernetes` (kube-apiserver's default
 * `--endpoint-reconciler-type=lease`): every API server refreshes its own master lease
 * and then makes the Service's Endpoints and EndpointSlice list exactly the servers
 * with a live lease, so a dead server drops out once its lease expires (≤ TTL + one
 * interval). Each server runs it every 10 s; on shutdown a server removes its lease
 * and rewrites the endpoints without itself.
 *
 * Endpoints: one subset per distinct port with the addresses sorted (upstream has one
 * subset: its servers share a port), label `endpointslice.kubernetes.io/skip-mirror`.
 * EndpointSlices: `kubernetes` for the lowest port, `kubernetes-<port>` for others,
 * label `kubernetes.io/service-name: kubernetes`, each endpoint ready; slices of the
 * Service that are not wanted are deleted (upstream's "other slices").
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/reconcilers/lease.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/reconcilers/endpointsadapter.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/controller/kubernetesservice/controller.go
 */
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../apimachinery/errors.js';
import { R, type Client } from '../../client/types.js';
import { realClock, type Clock, type TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/klog.js';
import type { MasterEndpoint, MasterLeases } from './master-leases.js';

/** Upstream's `--endpoint-reconciler` interval (EndpointInterval), ms. */
export const ENDPOINT_RECONCILE_INTERVAL_MS = 10_000;

const SKIP_MIRROR = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface EndpointReconcilerOptions {
  /** the API server's own loopback client */
  client: Client;
  leases: MasterLeases;
  /** this server's advertised address and secure port */
  self: Required<MasterEndpoint>;
  /** default `kubernetes` */
  serviceName?: string;
  logger?: Logger;
  clock?: Clock;
  /** ms between reconciles; default 10 000 */
  intervalMs?: number;
}

type EndpointsObj = KObject & { subsets?: unknown[] };
type SliceObj = KObject & { addressType?: string; endpoints?: unknown[]; ports?: unknown[] };

/** The port groups the leases describe: port → sorted addresses, ports ascending. */
export function groupByPort(eps: MasterEndpoint[], defaultPort: number): [number, string[]][] {
  const groups = new Map<number, Set<string>>();
  for (const ep of eps) {
    const port = ep.port ?? defaultPort;
    (groups.get(port) ?? groups.set(port, new Set()).get(port)!).add(ep.ip);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([port, ips]) => [port, [...ips].sort()]);
}

const endpointPort = (port: number) => ({ name: 'https', port, protocol: 'TCP' });

/** Deep equality of JSON values (key order ignored). */
function same(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(norm)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, x]) => [k, norm(x)]),
          )
        : v;
  return JSON.stringify(norm(a ?? null)) === JSON.stringify(norm(b ?? null));
}

export class LeaseEndpointReconciler {
  private readonly serviceName: string;
  private readonly clock: Clock;
  private timer: TimerHandle | undefined;
  private stopped = false;
  /** serializes reconciles (upstream's reconcilingLock) */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: EndpointReconcilerOptions) {
    this.serviceName = o.serviceName ?? 'kubernetes';
    this.clock = o.clock ?? realClock;
  }

  /** Reconciles once now (errors thrown), then every interval in the background (errors logged). */
  async start(): Promise<void> {
    await this.reconcile();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      void this.reconcile()
        .catch((err: unknown) => this.o.logger?.error(err, 'Unable to reconcile the kubernetes service endpoints'))
        .finally(() => this.schedule());
    }, this.o.intervalMs ?? ENDPOINT_RECONCILE_INTERVAL_MS);
  }

  /** Refreshes this server's lease, then makes the endpoints list every live lease. */
  reconcile(): Promise<void> {
    return this.serialized(async () => {
      if (this.stopped) return;
      await this.o.leases.update(this.o.self);
      await this.sync();
    });
  }

  /**
   * Stops reconciling, deletes this server's lease and rewrites the endpoints without
   * it (kube-apiserver's RemoveEndpoints at shutdown). Best effort: errors are logged.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    await this.serialized(async () => {
      await this.o.leases.remove(this.o.self);
      await this.sync();
    }).catch((err: unknown) => this.o.logger?.error(err, 'Unable to remove endpoints from kubernetes service'));
  }

  private serialized(fn: () => Promise<void>): Promise<void> {
    const next = this.chain.then(fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async sync(): Promise<void> {
    const live = await this.o.leases.list();
    if (live.length === 0) return; // nothing listed: never erase every endpoint (upstream refuses too)
    const groups = groupByPort(live, this.o.self.port);
    await this.retry(() => this.syncEndpoints(groups));
    await this.retry(() => this.syncSlices(groups));
  }

  /** Retries on Conflict and AlreadyExists (another API server wrote first), as upstream's adapter. */
  private async retry(fn: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (!(isConflict(err) || isAlreadyExists(err)) || attempt >= 4) throw err;
      }
    }
  }

  private async syncEndpoints(groups: [number, string[]][]): Promise<void> {
    const { client } = this.o;
    const subsets = groups.map(([port, ips]) => ({ addresses: ips.map((ip) => ({ ip })), ports: [endpointPort(port)] }));
    const labels = { [SKIP_MIRROR]: 'true' };
    let cur: EndpointsObj | undefined;
    try {
      cur = await client.get<EndpointsObj>(R.endpoints, 'default', this.serviceName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (cur && same(cur.subsets, subsets) && same(cur.metadata?.labels, labels)) return;
    this.o.logger?.warning(`Resetting endpoints for master service ${JSON.stringify(this.serviceName)} to [${groups.flatMap(([, ips]) => ips).join(' ')}]`);
    const obj: EndpointsObj = { apiVersion: 'v1', kind: 'Endpoints', metadata: { ...(cur?.metadata ?? { name: this.serviceName, namespace: 'default' }), labels }, subsets };
    if (cur) await client.update(R.endpoints, 'default', obj);
    else await client.create(R.endpoints, 'default', obj);
  }

  private async syncSlices(groups: [number, string[]][]): Promise<void> {
    const { client } = this.o;
    const list = await client.list<SliceObj>(R.endpointslices, 'default', { labelSelector: `${SERVICE_NAME_LABEL}=${this.serviceName}` });
    const want = new Map<string, SliceObj>();
    groups.forEach(([port, ips], i) => {
      const name = i === 0 ? this.serviceName : `${this.serviceName}-${port}`;
      want.set(name, {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name, namespace: 'default', labels: { [SERVICE_NAME_LABEL]: this.serviceName } },
        addressType: ips.some((ip) => ip.includes(':')) ? 'IPv6' : 'IPv4',
        endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports: [endpointPort(port)],
      });
    });
    for (const cur of list.items) {
      const name = cur.metadata?.name ?? '';
      const w = want.get(name);
      if (!w) {
        await client.delete(R.endpointslices, 'default', name).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
        continue;
      }
      want.delete(name);
      if (cur.addressType === w.addressType && same(cur.endpoints, w.endpoints) && same(cur.ports, w.ports) && same(cur.metadata?.labels, w.metadata?.labels)) continue;
      if (cur.addressType !== w.addressType) {
        // addressType is immutable: replace the slice
        await client.delete(R.endpointslices, 'default', name);
        await client.create(R.endpointslices, 'default', w);
        continue;
      }
      await client.update(R.endpointslices, 'default', { ...w, metadata: { ...cur.metadata, labels: w.metadata!.labels } });
    }
    for (const w of want.values()) await client.create(R.endpointslices, 'default', w);
  }
}
