/**
 * Node IPAM controller (upstream kube-controller-manager --allocate-node-cidrs with the
 * RangeAllocator): gives every Node without spec.podCIDR the next free /24 of the
 * cluster CIDR, and keeps the CIDRs of existing nodes reserved.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/nodeipam/ipam/range_allocator.go
 */
import type { Node as NodeT } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isNotFound } from '../../apimachinery/errors.js';
import { Informer } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { ControllerContext, Running } from '../index.js';

type Node = NodeT & KObject;

/** Splits an IPv4 CIDR (e.g. 10.42.0.0/16) into /24 subnets, in order. */
function subnets24(clusterCIDR: string): string[] {
  const [ip, bits] = clusterCIDR.split('/');
  const prefix = Number(bits);
  const o = ip!.split('.').map(Number);
  if (o.length !== 4 || o.some((x) => !(x >= 0 && x <= 255)) || !(prefix >= 8 && prefix <= 24)) {
    throw new Error(`invalid cluster CIDR ${clusterCIDR}: an IPv4 CIDR of /8 to /24 is needed`);
  }
  const base = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8)) >>> 0;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const start = (base & mask) >>> 0;
  const count = 1 << (24 - prefix);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = (start + (i << 8)) >>> 0;
    out.push(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.0/24`);
  }
  return out;
}

export async function startNodeIPAMController(ctx: ControllerContext & { clusterCIDR: string }): Promise<Running> {
  const { client } = ctx;
  const all = subnets24(ctx.clusterCIDR);
  const nodes = new Informer<Node>(client, R.nodes);
  const used = (): Set<string> => new Set(nodes.list().flatMap((n) => [n.spec?.podCIDR, ...(n.spec?.podCIDRs ?? [])].filter((c): c is string => !!c)));
  const pending = new Set<string>();
  const assign = async (n: Node): Promise<void> => {
    const name = n.metadata!.name!;
    if (n.spec?.podCIDR || pending.has(name)) return;
    pending.add(name);
    try {
      const taken = used();
      const cidr = all.find((c) => !taken.has(c));
      if (!cidr) {
        ctx.recorder.event(n, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
        return;
      }
      await client.patch(R.nodes, '', name, 'merge', { spec: { podCIDR: cidr, podCIDRs: [cidr] } });
      ctx.recorder.event(n, 'Normal', 'CIDRAssignmentSucceeded', `Node ${name} was assigned podCIDR ${cidr}`);
    } catch (e) {
      if (!isNotFound(e)) setTimeout(() => void assign(nodes.getByName('', name) ?? n), 1000).unref();
    } finally {
      pending.delete(name);
    }
  };
  nodes.addEventHandler({ add: (n) => void assign(n), update: (_o, n) => void assign(n) });
  nodes.start();
  await nodes.waitForSync();
  return {
    async stop() {
      nodes.stop();
    },
  };
}
