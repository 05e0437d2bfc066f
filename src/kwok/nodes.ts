/**
 * The node half of the kwok-style pool: registers many simulated Nodes (one create each,
 * status included, as a kubelet's registration) and keeps their `kube-node-lease` Leases
 * renewed from one timer — every tick renews the slice of nodes whose turn it is, so
 * 5,000 nodes cost one timer and an even trickle of writes instead of 5,000 timers.
 *
 * The Node objects look like a kubelet's (capacity, the four conditions with upstream's
 * reasons, addresses, nodeInfo) and are labelled simulated: label `type: kwok`,
 * annotation `kwok.x-k8s.io/node: fake`, containerRuntimeVersion `kwok (SIMULATED)`.
 *
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/pkg/kwok/controllers/node_lease_controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/nodelease
 */
import type { Node, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { isAlreadyExists, isConflict, isNotFound } from '../apimachinery/errors.js';
import { newQuantity, parseQuantity } from '../apimachinery/quantity.js';
import { rfc3339Micro } from '../client/events.js';
import { R, type Client } from '../client/types.js';
import { initialNode, nodeStatus, type MachineInfo } from '../kubelet/nodestatus/setters.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { LeaseRenewer } from './lease-renewer.js';
import { KeyedWorkQueue } from './work-queue.js';

const LEASE_NAMESPACE = 'kube-node-lease';
/** upstream kubelet's lease duration (s) */
export const LEASE_DURATION_S = 40;

/** One simulated node of the pool. */
export interface PoolNode {
  name: string;
  /** spec.podCIDR ('' = none) */
  podCIDR: string;
  /** status.addresses InternalIP */
  ip: string;
}

export interface NodePoolOptions {
  client: Client;
  clock: Clock;
  nodes: PoolNode[];
  /** capacity per node; defaults as kwok's node template: 32 CPUs, 256Gi, 110 pods */
  cpu?: string;
  memory?: string;
  pods?: number;
  /**
   * ms between two renewals of one node's lease; default 10 s (the kubelet's) up to
   * 500 nodes, then stretched so the pool renews at most 50 leases/s, capped at 35 s
   * (below the 40 s lease duration and the node lifecycle controller's 50 s grace)
   */
  leaseRenewMs?: number;
  /** requests in flight for registration and renewals (default 16) */
  concurrency?: number;
  /**
   * the cheap renewal path (the API server's lease store, see lease-renewer.ts); without
   * it every renewal is a client update. Leases are always created through the client.
   */
  renewer?: LeaseRenewer;
}

/** The default lease renewal period (ms) of a pool of `n` nodes. */
export function defaultLeaseRenewMs(n: number): number {
  return Math.min(35_000, Math.max(10_000, Math.ceil((n / 50) * 1000)));
}

/** A Node as a kubelet registers it, for a simulated pool node. */
export function poolNodeObject(n: PoolNode, o: { cpu: string; memory: string; pods: number; now: Date }): Node & KObject {
  const machine: MachineInfo = {
    cpu: parseQuantity(o.cpu),
    memory: parseQuantity(o.memory),
    ephemeralStorage: newQuantity(1024 * 1024 * 1024 * 1024, 'BinarySI'),
    machineID: hexID('machine', n.name),
    systemUUID: hexID('system', n.name),
    bootID: hexID('boot', n.name),
    kernelVersion: '',
    osImage: '',
    architecture: 'amd64',
    hostIP: n.ip,
    hostname: n.name,
  };
  const status: NodeStatus = nodeStatus(undefined, { machine, runtimeVersion: 'kwok (SIMULATED)', runtime: { ready: true, message: '' }, now: o.now });
  const pods = String(o.pods);
  status.capacity = { ...status.capacity, pods };
  status.allocatable = { ...status.allocatable, pods };
  const node = initialNode(n.name, 'kwok', n.podCIDR, status) as Node & KObject;
  node.metadata!.labels = { ...node.metadata!.labels, type: 'kwok', 'node-role.kubernetes.io/agent': '' };
  node.metadata!.annotations = { ...node.metadata!.annotations, 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' };
  return node;
}

function hexID(salt: string, name: string): string {
  return Buffer.from(`${salt}:${name}`).toString('hex').padEnd(32, '0').slice(0, 32);
}

/** Registers the pool's nodes and renews their leases until stopped. */
export class NodePool {
  /** the last lease seen per node (client path only) */
  private readonly leases = new Map<string, KObject>();
  /** nodes whose lease exists (renewer path: nothing else is kept per node) */
  private readonly created = new Set<string>();
  private readonly uids = new Map<string, string>();
  private readonly queue: KeyedWorkQueue;
  private timer?: TimerHandle;
  private tick = 0;
  private stopped = false;
  readonly renewMs: number;
  /** nodes registered so far */
  registered = 0;
  /** lease writes (creations and renewals) that succeeded so far */
  renewals = 0;

  constructor(private readonly o: NodePoolOptions) {
    this.renewMs = o.leaseRenewMs ?? defaultLeaseRenewMs(o.nodes.length);
    this.queue = new KeyedWorkQueue(o.concurrency ?? 16, (name) => this.renew(name));
  }

  /**
   * Creates (or adopts) every node, each followed by its Lease (as a kubelet starts its
   * lease controller once registered), with the lease renewals running from the start —
   * so no node waits for the whole pool's registration to get or renew its Lease (with
   * 5,000 nodes on a busy server that took longer than the node lifecycle controller's
   * grace period, and nodes were marked Unknown). Resolves when all are registered.
   */
  async start(): Promise<void> {
    // leases: spread over one renewal period, one slice per second
    const slices = Math.max(1, Math.round(this.renewMs / 1000));
    const registered = new Set<string>();
    const step = (): void => {
      if (this.stopped) return;
      const s = this.tick++ % slices;
      const now = new Date(this.o.clock.now());
      const renewTime = rfc3339Micro(now);
      for (let i = s; i < this.o.nodes.length; i += slices) {
        const name = this.o.nodes[i]!.name;
        if (!registered.has(name)) continue; // its lease comes with its registration
        // one tick's renewals are issued in one turn: the storage commits them together
        if (this.o.renewer && this.created.has(name)) this.renewFast(name, renewTime, now);
        else this.queue.add(name);
      }
      this.timer = this.o.clock.setTimeout(step, 1000);
    };
    step();
    const reg = new KeyedWorkQueue(this.o.concurrency ?? 16, async (i) => {
      const n = this.o.nodes[Number(i)]!;
      await this.register(n);
      registered.add(n.name);
      if (!this.stopped) await this.renew(n.name);
    });
    for (let i = 0; i < this.o.nodes.length; i++) reg.add(String(i));
    await reg.idle();
  }

  stop(): void {
    this.stopped = true;
    this.queue.stop();
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
  }

  private async register(n: PoolNode): Promise<void> {
    const obj = poolNodeObject(n, { cpu: this.o.cpu ?? '32', memory: this.o.memory ?? '256Gi', pods: this.o.pods ?? 110, now: new Date(this.o.clock.now()) });
    try {
      const created = await this.o.client.create(R.nodes, '', obj);
      this.uids.set(n.name, created.metadata?.uid ?? '');
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      // a restart: the node is ours again; post a fresh status (heartbeat)
      const cur = await this.o.client.get<Node & KObject>(R.nodes, '', n.name);
      this.uids.set(n.name, cur.metadata?.uid ?? '');
      await this.o.client.patch(R.nodes, '', n.name, 'merge', { status: { conditions: obj.status?.conditions } }, { subresource: 'status' });
    }
    this.registered++;
  }

  private desired(name: string, base?: KObject): KObject {
    const uid = this.uids.get(name);
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      ...base,
      metadata: {
        ...base?.metadata,
        name,
        namespace: LEASE_NAMESPACE,
        ...(uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid }] } : {}),
      },
      spec: { ...(base?.spec as object), holderIdentity: name, leaseDurationSeconds: LEASE_DURATION_S, renewTime: rfc3339Micro(new Date(this.o.clock.now())) },
    };
  }

  private renewFast(name: string, renewTime: string, now: Date): void {
    this.o.renewer!.renew(name, renewTime, now, LEASE_DURATION_S).then(
      () => this.renewals++,
      (e: unknown) => {
        if (this.stopped) return;
        // deleted meanwhile: create it again through the API; anything else: next period
        if (isNotFound(e)) {
          this.created.delete(name);
          this.queue.add(name);
        }
      },
    );
  }

  /** Creates or renews one node's lease (as the kubelet's lease controller, with one retry on conflict). */
  private async renew(name: string): Promise<void> {
    for (let attempt = 0; attempt < 2 && !this.stopped; attempt++) {
      const cur = this.leases.get(name);
      try {
        const next = cur
          ? await this.o.client.update(R.leases, LEASE_NAMESPACE, this.desired(name, cur))
          : await this.o.client.create(R.leases, LEASE_NAMESPACE, this.desired(name));
        this.renewals++;
        if (this.o.renewer) {
          this.leases.delete(name);
          this.created.add(name);
        } else this.leases.set(name, slimLease(next));
        return;
      } catch (e) {
        if (isAlreadyExists(e) && this.o.renewer) {
          // e.g. a restart: the lease is there, renew it the cheap way from now on
          this.created.add(name);
          return;
        }
        if (isAlreadyExists(e) || isConflict(e)) {
          const got = await this.o.client.get(R.leases, LEASE_NAMESPACE, name).catch(() => undefined);
          if (got) this.leases.set(name, slimLease(got));
          continue;
        }
        if (isNotFound(e)) {
          this.leases.delete(name);
          continue;
        }
        throw e;
      }
    }
  }
}

/** Keeps only what an update needs (no managedFields): the pool holds 5,000 of these. */
function slimLease(l: KObject): KObject {
  const { managedFields: _m, ...meta } = l.metadata ?? {};
  return { apiVersion: l.apiVersion, kind: l.kind, metadata: meta, spec: l.spec };
}
