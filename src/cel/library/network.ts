/**
 * The Kubernetes CEL `ip` and `cidr` libraries (Kubernetes 1.30+): `ip(string)`,
 * `isIP`, `ip.isCanonical`, `<IP>.family()`, `isUnspecified()`, `isLoopback()`,
 * `isLinkLocalMulticast()`, `isLinkLocalUnicast()`, `isGlobalUnicast()`, `string(IP)`;
 * `cidr(string)`, `isCIDR`, `<CIDR>.containsIP(IP|string)`, `containsCIDR(CIDR|string)`,
 * `ip()`, `masked()`, `prefixLength()`, `string(CIDR)`. Zones and IPv4-mapped IPv6
 * addresses are refused as upstream refuses them, with upstream's messages.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/ip.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/library/cidr.go
 */
import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost, traversalCost } from '../cost.js';
import { celError } from '../errors.js';
import { type Addr, addrClass, addrString, goQuote, is4In6, maskedPrefix, parseAddr, parsePrefix, type Prefix, prefixContains } from './net.js';

/** A CEL `net.IP` value. */
export class CelIP {
  constructor(readonly addr: Addr) {}
  toString(): string {
    return addrString(this.addr);
  }
}

/** A CEL `net.CIDR` value. */
export class CelCIDR {
  constructor(readonly prefix: Prefix) {}
  toString(): string {
    return `${addrString(this.prefix.addr)}/${this.prefix.bits}`;
  }
}

/** Namespace object for `ip.isCanonical(…)`. */
class IPNamespace {}

/** upstream parseIPAddr: netip.ParseAddr without zones or IPv4-mapped IPv6. */
function parseIP(raw: string): Addr {
  let a: Addr;
  try {
    a = parseAddr(raw);
  } catch (e) {
    throw celError(`IP Address ${goQuote(raw)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (a.zone !== '') throw celError(`IP address ${goQuote(raw)} with zone value is not allowed`);
  if (is4In6(a)) throw celError(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return a;
}

/** upstream parseCIDR: netip.ParsePrefix without zones or IPv4-mapped IPv6. */
function parseCIDR(raw: string): Prefix {
  let p: Prefix;
  try {
    p = parsePrefix(raw);
  } catch (e) {
    throw celError(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
  if (is4In6(p.addr)) throw celError(`network address parse error during conversion from string: IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return p;
}

function tryParse<T>(f: () => T): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

/** Registers the ip and cidr libraries on `env`. */
export function registerNetwork(env: Environment): void {
  env
    .registerType('net.IP', CelIP)
    .registerType('net.CIDR', CelCIDR)
    .registerType('kubernetes.IPNamespace', IPNamespace)
    .registerConstant('ip', 'kubernetes.IPNamespace', new IPNamespace())
    .registerOperator('net.IP == net.IP', (a: CelIP, b: CelIP) => addrString(a.addr) === addrString(b.addr))
    .registerOperator('net.CIDR == net.CIDR', (a: CelCIDR, b: CelCIDR) => a.toString() === b.toString())
    .registerFunction('ip(string): net.IP', (s: string) => {
      chargeCost(traversalCost(s.length));
      return new CelIP(parseIP(s));
    })
    .registerFunction('isIP(string): bool', (s: string) => {
      chargeCost(traversalCost(s.length));
      return tryParse(() => parseIP(s));
    })
    .registerFunction('kubernetes.IPNamespace.isCanonical(string): bool', (_ns: IPNamespace, s: string) => {
      chargeCost(traversalCost(s.length));
      return addrString(parseIP(s)) === s;
    })
    .registerFunction('net.IP.family(): int', (ip: CelIP) => (ip.addr.bytes.length === 4 ? 4n : 6n))
    .registerFunction('net.IP.isUnspecified(): bool', (ip: CelIP) => addrClass.isUnspecified(ip.addr))
    .registerFunction('net.IP.isLoopback(): bool', (ip: CelIP) => addrClass.isLoopback(ip.addr))
    .registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: CelIP) => addrClass.isLinkLocalMulticast(ip.addr))
    .registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: CelIP) => addrClass.isLinkLocalUnicast(ip.addr))
    .registerFunction('net.IP.isGlobalUnicast(): bool', (ip: CelIP) => addrClass.isGlobalUnicast(ip.addr))
    .registerFunction('string(net.IP): string', (ip: CelIP) => ip.toString())
    .registerFunction('cidr(string): net.CIDR', (s: string) => {
      chargeCost(traversalCost(s.length));
      return new CelCIDR(parseCIDR(s));
    })
    .registerFunction('isCIDR(string): bool', (s: string) => {
      chargeCost(traversalCost(s.length));
      return tryParse(() => parseCIDR(s));
    })
    .registerFunction('net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) => prefixContains(c.prefix, parseIP(s)))
    .registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, ip: CelIP) => prefixContains(c.prefix, ip.addr))
    .registerFunction('net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) => containsCIDR(c.prefix, parseCIDR(s)))
    .registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCIDR, o: CelCIDR) => containsCIDR(c.prefix, o.prefix))
    .registerFunction('net.CIDR.ip(): net.IP', (c: CelCIDR) => new CelIP(c.prefix.addr))
    .registerFunction('net.CIDR.masked(): net.CIDR', (c: CelCIDR) => new CelCIDR(maskedPrefix(c.prefix)))
    .registerFunction('net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.prefix.bits))
    .registerFunction('string(net.CIDR): string', (c: CelCIDR) => c.toString());
}

/** upstream containsCIDR: the other prefix is no wider and its (masked) start lies in this one. */
function containsCIDR(p: Prefix, o: Prefix): boolean {
  if (p.addr.bytes.length !== o.addr.bytes.length) return false;
  return p.bits <= o.bits && prefixContains(p, maskedPrefix(o).addr);
}
