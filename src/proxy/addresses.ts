/**
 * IPv4 address helpers for the proxy: CIDR membership and the node's local addresses
 * (for `--nodeport-addresses`).
 */
import type { NetExec } from './iptables.js';

/** The 32-bit value of a dotted IPv4 address, or undefined when it is not one. */
export function ipv4ToInt(ip: string): number | undefined {
  const p = ip.split('.');
  if (p.length !== 4) return undefined;
  let v = 0;
  for (const x of p) {
    if (!/^\d{1,3}$/.test(x) || Number(x) > 255) return undefined;
    v = v * 256 + Number(x);
  }
  return v;
}

/** Whether `ip` lies in `cidr` (IPv4 `a.b.c.d/n`); false for anything unparsable. */
export function cidrContains(cidr: string, ip: string): boolean {
  const [base, bits] = cidr.split('/');
  const b = ipv4ToInt(base ?? '');
  const a = ipv4ToInt(ip);
  const n = Number(bits ?? 32);
  if (b === undefined || a === undefined || !(n >= 0 && n <= 32)) return false;
  if (n === 0) return true;
  const shift = 32 - n;
  return Math.floor(a / 2 ** shift) === Math.floor(b / 2 ** shift);
}

/** The IPv4 addresses on this node's interfaces (`ip -4 -o addr show`). */
export async function localIPv4Addresses(exec: NetExec): Promise<string[]> {
  const out = await exec.run('ip', ['-4', '-o', 'addr', 'show']);
  const ips: string[] = [];
  for (const line of out.split('\n')) {
    const m = /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(line);
    if (m) ips.push(m[1]!);
  }
  return ips;
}
