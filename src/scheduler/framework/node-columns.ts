/**
 * The hot numbers of every node of a snapshot, column by column in typed arrays
 * (row = the node's position in the snapshot list): allocatable and requested
 * resources, pod counts and a few flags. The fast paths of the busiest plugins
 * (NodeResourcesFit, NodeResourcesBalancedAllocation, NodeUnschedulable,
 * TaintToleration, NodePorts) read these instead of chasing each NodeInfo's objects, so
 * filtering and scoring hundreds of nodes touches a few contiguous arrays; any node
 * whose flags ask for the general logic is handed to the plugin's per-node method.
 * Rows are rewritten whenever the snapshot takes a new NodeInfo copy.
 */
import type { NodeInfo } from './node-info.js';

/** Row flags. */
export const F_NO_NODE = 1;
export const F_UNSCHEDULABLE = 2;
/** the node has taints (any effect) */
export const F_TAINTED = 4;
/** host ports are in use on the node */
export const F_PORTS = 8;
/** allocatable or requested has scalar (extended, hugepages …) resources */
export const F_SCALAR = 16;
/** the node reports images (status.images) */
export const F_IMAGES = 32;

export class NodeColumns {
  size = 0;
  allocCPU = new Float64Array(0);
  allocMem = new Float64Array(0);
  allocEph = new Float64Array(0);
  allocPods = new Float64Array(0);
  reqCPU = new Float64Array(0);
  reqMem = new Float64Array(0);
  reqEph = new Float64Array(0);
  nzCPU = new Float64Array(0);
  nzMem = new Float64Array(0);
  pods = new Float64Array(0);
  flags = new Uint8Array(0);
  /** rows with F_IMAGES */
  withImages = 0;

  /** Makes room for `n` rows (contents of existing rows kept). */
  resize(n: number): void {
    // rows are rewritten after a resize: recount images from scratch
    this.flags.fill(0);
    this.withImages = 0;
    this.size = n;
    if (this.allocCPU.length >= n) return;
    const cap = Math.max(n, this.allocCPU.length * 2, 64);
    const grow = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    this.allocCPU = grow(this.allocCPU);
    this.allocMem = grow(this.allocMem);
    this.allocEph = grow(this.allocEph);
    this.allocPods = grow(this.allocPods);
    this.reqCPU = grow(this.reqCPU);
    this.reqMem = grow(this.reqMem);
    this.reqEph = grow(this.reqEph);
    this.nzCPU = grow(this.nzCPU);
    this.nzMem = grow(this.nzMem);
    this.pods = grow(this.pods);
    const f = new Uint8Array(cap);
    f.set(this.flags);
    this.flags = f;
  }

  /** Writes row `i` from a NodeInfo. */
  set(i: number, ni: NodeInfo): void {
    const a = ni.allocatable;
    const r = ni.requested;
    this.allocCPU[i] = a.milliCPU;
    this.allocMem[i] = a.memory;
    this.allocEph[i] = a.ephemeralStorage;
    this.allocPods[i] = a.allowedPodNumber;
    this.reqCPU[i] = r.milliCPU;
    this.reqMem[i] = r.memory;
    this.reqEph[i] = r.ephemeralStorage;
    this.nzCPU[i] = ni.nonZeroRequested.milliCPU;
    this.nzMem[i] = ni.nonZeroRequested.memory;
    this.pods[i] = ni.pods.length;
    let f = 0;
    const node = ni.node;
    if (!node) f |= F_NO_NODE;
    else {
      if (node.spec?.unschedulable) f |= F_UNSCHEDULABLE;
      if (node.spec?.taints?.length) f |= F_TAINTED;
    }
    if (ni.usedPorts.size) f |= F_PORTS;
    if ((a.scalar && a.scalar.size) || (r.scalar && r.scalar.size)) f |= F_SCALAR;
    if (ni.imageStates.size) f |= F_IMAGES;
    if (i < this.size) {
      const was = (this.flags[i]! & F_IMAGES) !== 0;
      if (was !== ((f & F_IMAGES) !== 0)) this.withImages += was ? -1 : 1;
    }
    this.flags[i] = f;
  }
}
