/**
 * kwok-style simulated nodes (`k8ts server --kwok-nodes N`): many Nodes with no kubelet
 * and no runtime behind them, as kwok (kubernetes-sigs/kwok) fakes them — one node pool
 * (registration + batched lease renewals) and one pod lifecycle watcher for all of them,
 * so a simulated node costs a few hundred bytes and no timer, and a pod on one costs one
 * status write. Everything they report is labelled SIMULATED (label `type: kwok`,
 * annotation `kwok.x-k8s.io/node: fake`, runtime `kwok (SIMULATED)`, IDs `kwok://…`).
 * Unlike `--sim-nodes` (full kubelets over the simulated runtime: exec, logs, probes,
 * volumes), pods on kwok nodes have no logs, exec or probes.
 *
 * @see https://kwok.sigs.k8s.io/docs/user/kwok-in-cluster/
 */
import type { Client } from '../client/types.js';
import { realClock, type Clock } from '../util/clock.js';
import type { EventRecorder } from '../client/events.js';
import type { LeaseRenewer } from './lease-renewer.js';
import { refKey, type CompiledStage } from './stage/stage.js';
import { NodePool, type PoolNode } from './nodes.js';
import { PodLifecycle } from './pods.js';

export interface KwokOptions {
  client: Client;
  /** how many nodes: kwok-node-0 … kwok-node-<count-1> */
  count: number;
  /** the cluster CIDR the nodes' /24 podCIDRs are taken from */
  clusterCIDR: string;
  /** /24s of the cluster CIDR already used by other nodes (taken from index `firstSubnet` on) */
  firstSubnet: number;
  clock?: Clock;
  /** lease renewal period per node, ms (default: see defaultLeaseRenewMs) */
  leaseRenewMs?: number;
  /** the cheap lease renewal path (see lease-renewer.ts); without it renewals are client updates */
  renewer?: LeaseRenewer;
  /** kwok Stages (--kwok-stages): the Pod ones drive the pods instead of the built-in stages */
  stages?: CompiledStage[];
  /** records the stages' events */
  recorder?: EventRecorder;
}

export interface RunningKwok {
  nodes: NodePool;
  /** resolves once every node has been created (or adopted) */
  registered: Promise<void>;
  pods: PodLifecycle;
  stop(): Promise<void>;
}

/** The `i`-th /24 of an IPv4 cluster CIDR, or undefined when the CIDR has fewer. */
export function nthSubnet24(clusterCIDR: string, i: number): string | undefined {
  const [ip, bits] = clusterCIDR.split('/');
  const prefix = Number(bits);
  const o = (ip ?? '').split('.').map(Number);
  if (o.length !== 4 || !(prefix >= 8 && prefix <= 24)) return undefined;
  if (i >= 2 ** (24 - prefix)) return undefined;
  const size = 2 ** (32 - prefix);
  const base = (((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8)) >>> 0) - ((((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8)) >>> 0) % size);
  const n = base + i * 256;
  return `${Math.floor(n / 2 ** 24)}.${Math.floor(n / 65536) % 256}.${Math.floor(n / 256) % 256}.0/24`;
}

/**
 * The pool's nodes: names `kwok-node-<i>`, InternalIPs 127.1.x.y (loopback: nothing sent
 * to a kwok node can leave the machine), podCIDRs the cluster CIDR's /24s from `firstSubnet`.
 * @throws Error when the cluster CIDR has too few /24s (with the flag to change)
 */
export function kwokNodes(count: number, clusterCIDR: string, firstSubnet: number): PoolNode[] {
  const out: PoolNode[] = [];
  for (let i = 0; i < count; i++) {
    const podCIDR = nthSubnet24(clusterCIDR, firstSubnet + i);
    if (!podCIDR) {
      throw new Error(`--kwok-nodes ${count}: --cluster-cidr ${clusterCIDR} has too few /24 pod CIDRs for ${firstSubnet + count} nodes (e.g. --cluster-cidr 10.128.0.0/9)`);
    }
    const host = i + 1;
    out.push({ name: `kwok-node-${i}`, podCIDR, ip: `127.1.${Math.floor(host / 256) % 256}.${host % 256}` });
  }
  return out;
}

/**
 * Starts registering the nodes (in the background: see `registered`) and their leases and pod lifecycle.
 * @throws Error when the cluster CIDR cannot give every node a /24
 */
export function startKwok(o: KwokOptions): RunningKwok {
  const clock = o.clock ?? realClock;
  const list = kwokNodes(o.count, o.clusterCIDR, o.firstSubnet);
  const nodes = new NodePool({ client: o.client, clock, nodes: list, leaseRenewMs: o.leaseRenewMs, renewer: o.renewer });
  const podStages = o.stages?.filter((s) => s.ref === refKey({ apiGroup: 'v1', kind: 'Pod' }));
  const pods = new PodLifecycle({
    client: o.client,
    clock,
    nodes: new Map(list.map((n) => [n.name, { ip: n.ip, podCIDR: n.podCIDR }])),
    stages: podStages,
    recorder: o.recorder,
  });
  pods.start();
  const registered = nodes.start();
  registered.catch(() => undefined);
  return {
    nodes,
    registered,
    pods,
    async stop() {
      nodes.stop();
      pods.stop();
    },
  };
}
