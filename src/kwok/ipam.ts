/**
 * Pod IPs for kwok-style simulated nodes: host addresses of each node's podCIDR (an IPv4
 * /24 or larger), handed out lowest first after the gateway (.1), and reusable once the
 * pod is gone — as a CNI host-local IPAM would, without touching the disk.
 *
 * @see https://github.com/containernetworking/plugins/tree/main/plugins/ipam/host-local
 */

function toInt(ip: string): number {
  const o = ip.split('.').map(Number);
  return ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
}
function toIP(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

interface Range {
  base: number;
  size: number;
  next: number;
  free: number[];
  used: Set<number>;
}

/** Per-node allocators over the nodes' podCIDRs. */
export class PodIPAllocator {
  private readonly ranges = new Map<string, Range>();

  private range(node: string, podCIDR: string): Range {
    let r = this.ranges.get(node);
    if (!r) {
      const [ip, bits] = podCIDR.split('/');
      const prefix = Number(bits);
      if (!ip || !(prefix >= 8 && prefix <= 30)) throw new Error(`node ${node}: no usable IPv4 podCIDR (${podCIDR || 'none'})`);
      const size = 2 ** (32 - prefix);
      const base = (toInt(ip) & ~(size - 1)) >>> 0;
      r = { base, size, next: 2, free: [], used: new Set() };
      this.ranges.set(node, r);
    }
    return r;
  }

  /**
   * The next free address of the node's range.
   * @throws Error when the range is exhausted (as host-local's "no IP addresses available in range set")
   */
  allocate(node: string, podCIDR: string): string {
    const r = this.range(node, podCIDR);
    let off = r.free.pop();
    if (off === undefined) {
      if (r.next >= r.size - 1) throw new Error(`failed to allocate for range 0: no IP addresses available in range set: ${podCIDR}`);
      off = r.next++;
    }
    r.used.add(off);
    return toIP(r.base + off);
  }

  /** Marks an address already in use (a pod found Running after a restart); returns it. */
  claim(node: string, podCIDR: string, ip: string): string {
    const r = this.range(node, podCIDR);
    const off = toInt(ip) - r.base;
    if (off > 0 && off < r.size) {
      r.used.add(off);
      if (off >= r.next) r.next = off + 1;
    }
    return ip;
  }

  release(node: string, ip: string): void {
    const r = this.ranges.get(node);
    if (!r) return;
    const off = toInt(ip) - r.base;
    if (r.used.delete(off)) r.free.push(off);
  }
}
