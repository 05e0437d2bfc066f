/**
 * IP addresses and prefixes parsed as Go's `net/netip` parses them (`ParseAddr`,
 * `ParsePrefix`), which is what the Kubernetes CEL `ip` and `cidr` libraries build on:
 * dotted-quad IPv4 without leading zeros, RFC 4291 IPv6 text (with an embedded IPv4 tail),
 * canonical strings as `netip.Addr.String` writes them (RFC 5952 for IPv6).
 *
 * @see https://pkg.go.dev/net/netip
 */

/** A parsed address: 4 or 16 bytes, and a zone when the text had one. */
export interface Addr {
  readonly bytes: Uint8Array;
  readonly zone: string;
}

/** A parse failure; `message` is netip's text (`ParseAddr("x"): unable to parse IP`). */
export class NetParseError extends Error {}

function addrErr(input: string, msg: string, at?: string): NetParseError {
  return new NetParseError(`ParseAddr(${goQuote(input)}): ${msg}${at !== undefined ? ` (at ${goQuote(at)})` : ''}`);
}

/** Go's %q for the ASCII strings these messages carry. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

function parseV4(s: string, input: string): Uint8Array {
  const out = new Uint8Array(4);
  let val = 0;
  let digits = 0;
  let pos = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) throw addrErr(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) throw addrErr(input, 'IPv4 field has value >255');
    } else if (c === 46) {
      if (i === 0 || i === s.length - 1 || s.charCodeAt(i - 1) === 46) throw addrErr(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrErr(input, 'IPv4 address too long');
      out[pos++] = val;
      val = 0;
      digits = 0;
    } else throw addrErr(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) throw addrErr(input, 'IPv4 address too short');
  out[3] = val;
  return out;
}

function parseV6(in0: string): Addr {
  let s = in0;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrErr(in0, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s.charCodeAt(off);
      let d: number;
      if (c >= 48 && c <= 57) d = c - 48;
      else if (c >= 97 && c <= 102) d = c - 87;
      else if (c >= 65 && c <= 70) d = c - 55;
      else break;
      if (off > 3) throw addrErr(in0, 'each colon-separated field must have at most 4 hex digits', s);
      acc = acc * 16 + d;
    }
    if (off === 0) throw addrErr(in0, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrErr(in0, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrErr(in0, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      let v4: Uint8Array;
      try {
        v4 = parseV4(s, s);
      } catch (e) {
        throw addrErr(in0, (e as Error).message.replace(/^ParseAddr\("[^"]*"\): /, ''), s);
      }
      ip.set(v4, i);
      i += 4;
      s = '';
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrErr(in0, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrErr(in0, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrErr(in0, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrErr(in0, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrErr(in0, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw addrErr(in0, 'the :: must expand to at least one field of zeros');
  return { bytes: ip, zone };
}

/** netip.ParseAddr. @throws NetParseError with netip's message */
export function parseAddr(s: string): Addr {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '.') return { bytes: parseV4(s, s), zone: '' };
    if (s[i] === ':') return parseV6(s);
    if (s[i] === '%') throw addrErr(s, 'missing IPv6 address');
  }
  throw addrErr(s, 'unable to parse IP');
}

/** Whether a 16-byte address is an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
export function is4In6(a: Addr): boolean {
  const b = a.bytes;
  if (b.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** netip.Addr.String: dotted quad, or RFC 5952 IPv6 with the zone appended. */
export function addrString(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return b.join('.');
  if (is4In6(a)) return `::ffff:${[...b.slice(12)].join('.')}${a.zone ? `%${a.zone}` : ''}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
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
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += '::';
      i += bestLen - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += groups[i]!.toString(16);
  }
  return out + (a.zone ? `%${a.zone}` : '');
}

/** A parsed prefix (netip.Prefix): the address as written and the prefix length. */
export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

/** netip.ParsePrefix. @throws NetParseError with netip's message */
export function parsePrefix(s: string): Prefix {
  const slash = s.lastIndexOf('/');
  const err = (msg: string) => new NetParseError(`netip.ParsePrefix(${goQuote(s)}): ${msg}`);
  if (slash < 0) throw err("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (e) {
    throw err((e as Error).message);
  }
  if (addr.zone !== '') throw err('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  if (!/^[0-9]+$/.test(bitsStr) || (bitsStr.length > 1 && bitsStr[0] === '0')) throw err(`bad bits after slash: ${goQuote(bitsStr)}`);
  const bits = Number(bitsStr);
  const max = addr.bytes.length * 8;
  if (bits > max) throw err('prefix length out of range');
  return { addr, bits };
}

/** The prefix with the host bits cleared (netip.Prefix.Masked). */
export function maskedPrefix(p: Prefix): Prefix {
  const b = new Uint8Array(p.addr.bytes);
  for (let i = 0; i < b.length; i++) {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    b[i] = b[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return { addr: { bytes: b, zone: '' }, bits: p.bits };
}

/** netip.Prefix.Contains: same family and the first `bits` bits equal. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.bytes.length !== p.addr.bytes.length || a.zone !== '') return false;
  const m = maskedPrefix(p).addr.bytes;
  const x = maskedPrefix({ addr: a, bits: p.bits }).addr.bytes;
  return m.every((v, i) => v === x[i]);
}

/** netip's classifications, by family. */
export const addrClass = {
  isUnspecified: (a: Addr): boolean => a.bytes.every((v) => v === 0),
  isLoopback: (a: Addr): boolean => (a.bytes.length === 4 ? a.bytes[0] === 127 : a.bytes.every((v, i) => v === (i === 15 ? 1 : 0))),
  isMulticast: (a: Addr): boolean => (a.bytes.length === 4 ? (a.bytes[0]! & 0xf0) === 0xe0 : a.bytes[0] === 0xff),
  isLinkLocalMulticast: (a: Addr): boolean =>
    a.bytes.length === 4 ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0 : a.bytes[0] === 0xff && (a.bytes[1]! & 0x0f) === 0x02,
  isLinkLocalUnicast: (a: Addr): boolean => (a.bytes.length === 4 ? a.bytes[0] === 169 && a.bytes[1] === 254 : a.bytes[0] === 0xfe && (a.bytes[1]! & 0xc0) === 0x80),
  isGlobalUnicast: (a: Addr): boolean => {
    if (a.bytes.length === 4 && a.bytes.every((v) => v === 255)) return false;
    return !addrClass.isUnspecified(a) && !addrClass.isLoopback(a) && !addrClass.isMulticast(a) && !addrClass.isLinkLocalUnicast(a);
  },
};
