/**
 * A network namespace standing for one node, for tests that program iptables and routes:
 * `ip netns add k8ts-<hex>`, a veth pair whose host end (`hostIP`, in this process's
 * namespace) and node end (`nodeIP`, inside) share a /30 of the benchmarking range
 * 198.18.0.0/15 (RFC 2544: never routed; link-local addresses are refused as endpoints),
 * loopback up, and the node's default route into a sink (`uplink`: a veth pair with both
 * ends inside, nothing behind it): whatever would leave the node through its default
 * route stays inside the namespace, and a test can count it there.
 * Everything a test programs inside is gone with the namespace: `remove()` deletes it
 * (the veth pair and the host routes through it go with it). Nothing is changed in this
 * process's namespace except the veth's host end and the routes a test adds through it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { requirePackages, requireRoot } from './deps.js';

export interface NodeNetns {
  /** namespace name (`ip netns`) */
  name: string;
  /** /run/netns/<name> */
  path: string;
  /** the host end's address (reachable from inside; the API server listens here) */
  hostIP: string;
  /** the node end's address (the node's InternalIP) */
  nodeIP: string;
  /** host-side veth name */
  hostIf: string;
  /** the interface the node's default route points at (a sink inside the namespace) */
  uplink: string;
  /** packets sent out of the default route so far */
  uplinkTxPackets(): number;
  /** runs `cmd args` inside; throws with stderr on failure */
  exec(cmd: string, args: string[]): string;
  /** adds a host route to `cidr` through the node end (pod IPs reachable from this process) */
  routeFromHost(cidr: string): void;
  remove(): void;
}

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error}`);
  return r.stdout;
}

/** A free 198.18-19.<x>.<4b>/30 (no address or route of this machine inside its /24). */
function pickTestNet(): [string, string] {
  const used = sh('ip', ['-4', '-o', 'addr', 'show']) + sh('ip', ['-4', 'route', 'show']);
  for (let i = 0; i < 64; i++) {
    const [a, b, c] = randomBytes(3);
    const prefix = `198.${18 + (a! % 2)}.${b}`;
    const base = 4 * (c! % 63);
    if (!used.includes(`${prefix}.`)) return [`${prefix}.${base + 1}`, `${prefix}.${base + 2}`];
  }
  throw new Error('no free 198.18.0.0/15 /30 for a test node namespace');
}

/** Creates the namespace and its veth link (root only). */
export function createNodeNetns(): NodeNetns {
  requirePackages(['iproute2', 'iptables'], 'a test node network namespace');
  requireRoot('a test node network namespace');
  const hex = randomBytes(3).toString('hex');
  const name = `k8ts-${hex}`;
  const hostIf = `k8h-${hex}`;
  const nodeIf = `k8n-${hex}`;
  const [hostIP, nodeIP] = pickTestNet();
  const uplink = `k8d-${hex}`;
  sh('ip', ['netns', 'add', name]);
  const remove = (): void => {
    spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', hostIf], { stdio: 'ignore' });
  };
  try {
    sh('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nodeIf, 'netns', name]);
    sh('ip', ['addr', 'add', `${hostIP}/30`, 'dev', hostIf]);
    sh('ip', ['link', 'set', hostIf, 'up']);
    const inside = (args: string[]) => sh('ip', ['-n', name, ...args]);
    inside(['link', 'set', 'lo', 'up']);
    inside(['addr', 'add', `${nodeIP}/30`, 'dev', nodeIf]);
    inside(['link', 'set', nodeIf, 'up']);
    // the sink: a veth pair with both ends inside (the kernel here has no dummy driver); what is sent on it is never answered
    inside(['link', 'add', uplink, 'type', 'veth', 'peer', 'name', `k8p-${hex}`]);
    inside(['link', 'set', `k8p-${hex}`, 'up']);
    inside(['link', 'set', uplink, 'up']);
    inside(['route', 'add', 'default', 'dev', uplink]);
    sh('ip', ['netns', 'exec', name, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
  } catch (e) {
    remove();
    throw e;
  }
  return {
    name,
    path: `/run/netns/${name}`,
    hostIP,
    nodeIP,
    hostIf,
    uplink,
    uplinkTxPackets: () => {
      const st = JSON.parse(sh('ip', ['-n', name, '-s', '-j', 'link', 'show', uplink])) as { stats64?: { tx?: { packets?: number } } }[];
      return st[0]?.stats64?.tx?.packets ?? 0;
    },
    exec: (cmd, args) => sh('nsenter', [`--net=/run/netns/${name}`, '--', cmd, ...args]),
    routeFromHost: (cidr) => void sh('ip', ['route', 'replace', cidr, 'via', nodeIP, 'dev', hostIf]),
    remove,
  };
}
