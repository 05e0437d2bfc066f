/**
 * IP address arithmetic for the Service allocators and the "non-special IP" checks:
 * addresses as bigints, CIDR parsing, RFC 5952 formatting. Parsing follows upstream's
 * ParseIPSloppy (IPv4 octets may carry leading zeros; IPv4-mapped IPv6 is IPv4).
 *
 * @see https://github.com/kubernetes/utils/blob/master/net/ipnet.go
 * @see https://pkg.go.dev/net#IP
 */

/** 4 or 6 */
export type IPFamilyNumber = 4 | 6;

/** An address: family and value (32 or 128 bits). */
export interface IPAddr {
  family: IPFamilyNumber;
  value: bigint;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3 || !/^[0-9]+$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined;
  let tail: bigint | undefined;
  let str = s;
  // embedded IPv4 in the last 32 bits
  const lastColon = str.lastIndexOf(':');
  if (lastColon >= 0 && str.slice(lastColon + 1).includes('.')) {
    tail = parseV4(str.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    str = str.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = str.indexOf('::');
  if (dbl !== str.lastIndexOf('::')) return undefined;
  let groups: string[];
  if (dbl >= 0) {
    const head = str.slice(0, dbl) === '' ? [] : str.slice(0, dbl).split(':');
    const rest = str.slice(dbl + 2) === '' ? [] : str.slice(dbl + 2).split(':');
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return undefined;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else {
    groups = str.split(':');
  }
  if (groups.length !== 8) return undefined;
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail !== undefined) v = (v & ~0xffffffffn) | tail;
  return v;
}

/** Parses an address; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) comes back as IPv4 (Go's To4()). */
export function parseIP(s: string): IPAddr | undefined {
  const v4 = parseV4(s);
  if (v4 !== undefined) return { family: 4, value: v4 };
  if (!s.includes(':')) return undefined;
  const v6 = parseV6(s);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

/** Formats an address (IPv6 per RFC 5952: lower case, longest zero run of ≥2 groups compressed). */
export function formatIP(a: IPAddr): string {
  if (a.family === 4) {
    const v = Number(a.value);
    return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((a.value >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (g: number): string => g.toString(16);
  if (bestStart < 0) return groups.map(hex).join(':');
  const head = groups.slice(0, bestStart).map(hex).join(':');
  const tail = groups
    .slice(bestStart + bestLen)
    .map(hex)
    .join(':');
  return `${head}::${tail}`;
}

/** A parsed CIDR: the network address, prefix length and total address count. */
export interface CIDR {
  family: IPFamilyNumber;
  /** network address (host bits cleared) */
  base: bigint;
  prefix: number;
  /** 2^(bits - prefix) */
  size: bigint;
  /** canonical text, e.g. `10.96.0.0/12` */
  text: string;
}

/**
 * Parses `a.b.c.d/n` or `x::/n` (host bits are cleared as Go's net.ParseCIDR does).
 *
 * @throws Error `invalid CIDR address: <s>` (Go's message)
 */
export function parseCIDR(s: string): CIDR {
  const slash = s.indexOf('/');
  const addr = slash >= 0 ? s.slice(0, slash) : '';
  const bitsText = slash >= 0 ? s.slice(slash + 1) : '';
  const family: IPFamilyNumber = addr.includes(':') ? 6 : 4;
  const value = family === 6 ? parseV6(addr) : parseV4(addr);
  const width = family === 4 ? 32 : 128;
  if (value === undefined || !/^[0-9]{1,3}$/.test(bitsText) || Number(bitsText) > width) throw new Error(`invalid CIDR address: ${s}`);
  const prefix = Number(bitsText);
  const hostBits = BigInt(width - prefix);
  const base = (value >> hostBits) << hostBits;
  const size = 1n << hostBits;
  return { family, base, prefix, size, text: `${formatIP({ family, value: base })}/${prefix}` };
}

/** Whether `a` lies in `c`. */
export function cidrContains(c: CIDR, a: IPAddr): boolean {
  return a.family === c.family && a.value >= c.base && a.value < c.base + c.size;
}

/**
 * Go's IsUnspecified / IsLoopback / IsLinkLocalUnicast / IsLinkLocalMulticast, used by
 * upstream ValidateNonSpecialIP.
 */
export function specialKind(a: IPAddr): 'unspecified' | 'loopback' | 'link-local' | 'link-local-multicast' | undefined {
  if (a.family === 4) {
    const v = a.value;
    if (v === 0n) return 'unspecified';
    if (v >> 24n === 127n) return 'loopback';
    if (v >> 16n === 0xa9fen) return 'link-local';
    if (v >> 8n === 0xe00000n) return 'link-local-multicast';
    return undefined;
  }
  const v = a.value;
  if (v === 0n) return 'unspecified';
  if (v === 1n) return 'loopback';
  if (v >> 118n === 0x3fan) return 'link-local'; // fe80::/10
  if (v >> 120n === 0xffn && ((v >> 112n) & 0x0fn) === 0x02n) return 'link-local-multicast'; // ffx2::/16
  return undefined;
}
