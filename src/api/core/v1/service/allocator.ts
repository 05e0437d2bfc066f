/**
 * Range allocators for Service ClusterIPs and NodePorts, modelled on upstream's
 * ipallocator and portallocator: a range of offsets, each value owned by one Service,
 * random dynamic allocation from the upper band before the lower "static" band (so that
 * low, hand-picked values such as 10.96.0.1 or 10.96.0.10 stay free), and upstream's
 * error texts. Values are kept in a Map (memory ∝ allocated values, not range size).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/service/ipallocator/bitmap.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/service/portallocator/allocator.go
 * @see https://kubernetes.io/docs/concepts/services-networking/cluster-ip-allocation/
 */
import { type CIDR, formatIP, type IPAddr, parseCIDR, parseIP } from '../shared/ip.js';

/** Why an allocation failed; `message` is upstream's error text. */
export class AllocationError extends Error {
  constructor(
    readonly reason: 'not-in-range' | 'allocated' | 'full',
    message: string,
  ) {
    super(message);
    this.name = 'AllocationError';
  }
}

/** Who holds a value and since when (ms, allocator clock). */
interface Holder {
  owner: string;
  at: number;
}

/**
 * Offsets [0, size) with an owner each. `staticSize` offsets at the bottom are handed out
 * by {@link allocateNext} only once the upper band is full (upstream's static sub-range).
 */
export class OffsetAllocator {
  private readonly held = new Map<number, Holder>();

  constructor(
    readonly size: number,
    readonly staticSize: number,
    private readonly random: () => number,
  ) {}

  get(off: number): Holder | undefined {
    return this.held.get(off);
  }
  set(off: number, h: Holder): void {
    this.held.set(off, h);
  }
  delete(off: number): boolean {
    return this.held.delete(off);
  }
  get count(): number {
    return this.held.size;
  }
  entries(): IterableIterator<[number, Holder]> {
    return this.held.entries();
  }
  clear(): void {
    this.held.clear();
  }

  /** A free offset (upper band first, random start, linear probe), or undefined when full. */
  findFree(): number | undefined {
    const scan = (lo: number, hi: number): number | undefined => {
      const n = hi - lo;
      if (n <= 0) return undefined;
      const start = Math.min(n - 1, Math.floor(this.random() * n));
      for (let i = 0; i < n; i++) {
        const off = lo + ((start + i) % n);
        if (!this.held.has(off)) return off;
      }
      return undefined;
    };
    return scan(this.staticSize, this.size) ?? scan(0, Math.min(this.staticSize, this.size));
  }
}

/** Upstream calculateRangeOffset: size/step clamped to [min, max], 0 for tiny ranges. */
export function rangeOffset(size: number, min: number, max: number, step: number): number {
  if (size <= min) return 0;
  return Math.min(max, Math.max(min, Math.floor(size / step)));
}

const MAX_RANGE = 2 ** 48;

/**
 * The addresses of a service CIDR: the network address (and for IPv4 the broadcast
 * address) are never handed out. Offset 0 is the first usable address (e.g. 10.96.0.1).
 */
export class IPRange {
  readonly cidr: CIDR;
  readonly family: 'IPv4' | 'IPv6';
  readonly alloc: OffsetAllocator;
  private readonly first: bigint;

  /** @throws Error for an unparsable CIDR */
  constructor(cidr: string, random: () => number) {
    this.cidr = parseCIDR(cidr.trim());
    this.family = this.cidr.family === 4 ? 'IPv4' : 'IPv6';
    const total = this.cidr.size;
    const usable = this.cidr.family === 4 ? total - 2n : total - 1n;
    const size = usable <= 0n ? 0 : Number(usable > BigInt(MAX_RANGE) ? BigInt(MAX_RANGE) : usable);
    const totalN = total > BigInt(MAX_RANGE) ? MAX_RANGE : Number(total);
    this.first = this.cidr.base + 1n;
    this.alloc = new OffsetAllocator(size, rangeOffset(totalN, 16, 256, 16), random);
  }

  /** The text of the range for messages, e.g. `10.96.0.0/12`. */
  get text(): string {
    return this.cidr.text;
  }

  /** Offset of an address, or undefined when outside the allocatable range. */
  offsetOf(ip: string): number | undefined {
    const a = parseIP(ip);
    if (!a || (a.family === 4 ? 'IPv4' : 'IPv6') !== this.family) return undefined;
    const d = a.value - this.first;
    if (d < 0n || d >= BigInt(this.alloc.size)) return undefined;
    return Number(d);
  }

  /** The address at an offset. */
  ipAt(off: number): string {
    const a: IPAddr = { family: this.cidr.family, value: this.first + BigInt(off) };
    return formatIP(a);
  }

  notInRange(): AllocationError {
    return new AllocationError('not-in-range', `provided IP is not in the valid range. The range of valid IPs is ${this.text}`);
  }
}

/** The first usable address of a CIDR (the `kubernetes` Service IP), e.g. 10.96.0.1 for 10.96.0.0/12. */
export function firstUsableIP(cidr: string): string {
  const c = parseCIDR(cidr.trim());
  return formatIP({ family: c.family, value: c.base + 1n });
}

/**
 * A node port range, `30000-32767` or `30000+2768` (upstream utilnet.PortRange syntax).
 *
 * @throws Error for malformed ranges
 */
export class PortRange {
  readonly base: number;
  readonly max: number;
  readonly alloc: OffsetAllocator;

  constructor(spec: string, random: () => number) {
    const m = /^\s*(\d+)\s*(?:([-+])\s*(\d+))?\s*$/.exec(spec);
    if (!m) throw new Error(`unable to parse port range: ${spec}`);
    const base = Number(m[1]);
    let max = base;
    if (m[2] === '-') max = Number(m[3]);
    else if (m[2] === '+') max = base + Number(m[3]);
    if (base < 1 || max > 65535 || max < base) throw new Error(`unable to parse port range: ${spec}`);
    this.base = base;
    this.max = max;
    const size = max - base + 1;
    this.alloc = new OffsetAllocator(size, rangeOffset(size, 16, 128, 32), random);
  }

  /** `30000-32767` */
  get text(): string {
    return `${this.base}-${this.max}`;
  }

  offsetOf(port: number): number | undefined {
    return Number.isInteger(port) && port >= this.base && port <= this.max ? port - this.base : undefined;
  }

  portAt(off: number): number {
    return this.base + off;
  }

  notInRange(): AllocationError {
    return new AllocationError('not-in-range', `provided port is not in the valid range. The range of valid ports is ${this.text}`);
  }
}
