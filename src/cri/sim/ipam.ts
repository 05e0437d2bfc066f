/**
 * Pod IP allocation from the node's IPv4 pod CIDR, as the CNI host-local plugin does
 * with a bridge gateway: the network and broadcast addresses and `.1` (the gateway)
 * are never handed out; addresses are given in order and reused after release.
 */
import { CRIError } from '../api.js';

export class Ipam {
  private base = 0;
  private size = 0;
  private next = 2;
  private readonly used = new Set<number>();
  readonly cidr: string;

  /** @throws CRIError InvalidArgument for anything but an IPv4 CIDR with at least 4 addresses */
  constructor(cidr: string) {
    const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
    const bits = m ? Number(m[5]) : -1;
    if (!m || bits > 30 || bits < 0 || m.slice(1, 5).some((x) => Number(x) > 255)) {
      throw new CRIError('InvalidArgument', `invalid pod CIDR ${JSON.stringify(cidr)}: the simulated network supports IPv4 CIDRs up to /30`);
    }
    this.size = 2 ** (32 - bits);
    const ip = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
    this.base = ip - (ip % this.size);
    this.cidr = cidr;
  }

  /** @throws CRIError Unavailable when the range is exhausted */
  allocate(): string {
    for (let i = 0; i < this.size; i++) {
      const off = 2 + ((this.next - 2 + i) % (this.size - 3));
      if (!this.used.has(off)) {
        this.used.add(off);
        this.next = off + 1;
        return toIP(this.base + off);
      }
    }
    throw new CRIError('Unavailable', `failed to allocate for range 0: no IP addresses available in range set: ${this.cidr}`);
  }

  release(ip: string): void {
    this.used.delete(this.offset(ip));
  }

  /** Marks `ip` as in use (a sandbox restored after a restart); false when it lies outside the range. */
  reserve(ip: string): boolean {
    const off = this.offset(ip);
    if (!(off >= 2 && off < this.size - 1)) return false;
    this.used.add(off);
    return true;
  }

  private offset(ip: string): number {
    const p = ip.split('.').map(Number);
    const n = ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
    return n - this.base;
  }
}

function toIP(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}
