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

/** Loopback up, the sink `uplink` as default route, forwarding on: what every node namespace gets. */
function setUpNodeInside(name: string, hex: string): string {
  const inside = (args: string[]) => sh('ip', ['-n', name, ...args]);
  const uplink = `k8d-${hex}`;
  inside(['link', 'set', 'lo', 'up']);
  // the sink: a veth pair with both ends inside (the kernel here has no dummy driver); what is sent on it is never answered
  inside(['link', 'add', uplink, 'type', 'veth', 'peer', 'name', `k8p-${hex}`]);
  inside(['link', 'set', `k8p-${hex}`, 'up']);
  inside(['link', 'set', uplink, 'up']);
  inside(['route', 'add', 'default', 'dev', uplink]);
  sh('ip', ['netns', 'exec', name, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
  return uplink;
}

function nodeHandle(name: string, hostIP: string, nodeIP: string, hostIf: string, uplink: string, remove: () => void): NodeNetns {
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

/** Creates the namespace and its veth link (root only). */
export function createNodeNetns(): NodeNetns {
  requirePackages(['iproute2', 'iptables'], 'a test node network namespace');
  requireRoot('a test node network namespace');
  const hex = randomBytes(3).toString('hex');
  const name = `k8ts-${hex}`;
  const hostIf = `k8h-${hex}`;
  const nodeIf = `k8n-${hex}`;
  const [hostIP, nodeIP] = pickTestNet();
  sh('ip', ['netns', 'add', name]);
  const remove = (): void => {
    spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', hostIf], { stdio: 'ignore' });
  };
  let uplink: string;
  try {
    sh('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nodeIf, 'netns', name]);
    sh('ip', ['addr', 'add', `${hostIP}/30`, 'dev', hostIf]);
    sh('ip', ['link', 'set', hostIf, 'up']);
    sh('ip', ['-n', name, 'addr', 'add', `${nodeIP}/30`, 'dev', nodeIf]);
    sh('ip', ['-n', name, 'link', 'set', nodeIf, 'up']);
    uplink = setUpNodeInside(name, hex);
  } catch (e) {
    remove();
    throw e;
  }
  return nodeHandle(name, hostIP, nodeIP, hostIf, uplink, remove);
}

/** Several node namespaces on one layer-2 segment with the host (see {@link createNodeLan}). */
export interface NodeLan {
  /** the host's address on the segment (the API server listens here) */
  hostIP: string;
  /** the segment's prefix length (/28) */
  prefixLen: number;
  nodes: NodeNetns[];
  /** deletes every node namespace, the segment's namespace and the host's veth */
  remove(): void;
}

/** A free 198.18-19.<x>.<16b>/28 (no address or route of this machine inside its /24). */
function pickTestNet28(): string[] {
  const used = sh('ip', ['-4', '-o', 'addr', 'show']) + sh('ip', ['-4', 'route', 'show']);
  for (let i = 0; i < 64; i++) {
    const [a, b, c] = randomBytes(3);
    const prefix = `198.${18 + (a! % 2)}.${b}`;
    const base = 16 * (c! % 15);
    if (!used.includes(`${prefix}.`)) return Array.from({ length: 14 }, (_, j) => `${prefix}.${base + 1 + j}`);
  }
  throw new Error('no free 198.18.0.0/15 /28 for a test node network');
}

/**
 * `count` node namespaces (each as {@link createNodeNetns} makes one: loopback, the sink
 * default route, forwarding) attached to one layer-2 segment with the host: a bridge in a
 * namespace of its own (`k8ts-<hex>-lan`, nothing else in it, so the host's bridge
 * netfilter never sees the traffic), a veth from the host (`hostIP`, first address of a
 * /28 of 198.18.0.0/15) and one veth per node (`nodeIP`, the next addresses). Nodes reach
 * each other directly on that /28, as flannel's host-gw backend needs.
 */
export function createNodeLan(count: number): NodeLan {
  requirePackages(['iproute2', 'iptables'], 'a test node network');
  requireRoot('a test node network');
  if (count < 1 || count > 13) throw new Error(`createNodeLan: 1–13 nodes, not ${count}`);
  const hex = randomBytes(3).toString('hex');
  const lan = `k8ts-${hex}-lan`;
  const hostIf = `k8h-${hex}`;
  const ips = pickTestNet28();
  const hostIP = ips[0]!;
  const names = Array.from({ length: count }, (_, i) => `k8ts-${hex}-${i}`);
  const removeAll = (): void => {
    for (const n of names) spawnSync('ip', ['netns', 'del', n], { stdio: 'ignore' });
    spawnSync('ip', ['netns', 'del', lan], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', hostIf], { stdio: 'ignore' });
  };
  const nodes: NodeNetns[] = [];
  try {
    sh('ip', ['netns', 'add', lan]);
    sh('ip', ['-n', lan, 'link', 'add', 'br0', 'type', 'bridge']);
    sh('ip', ['-n', lan, 'link', 'set', 'br0', 'up']);
    sh('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', `k8l-${hex}`, 'netns', lan]);
    sh('ip', ['-n', lan, 'link', 'set', `k8l-${hex}`, 'master', 'br0', 'up']);
    sh('ip', ['addr', 'add', `${hostIP}/28`, 'dev', hostIf]);
    sh('ip', ['link', 'set', hostIf, 'up']);
    names.forEach((name, i) => {
      const nodeIP = ips[i + 1]!;
      const nodeIf = `k8n-${hex}${i}`;
      sh('ip', ['netns', 'add', name]);
      sh('ip', ['-n', lan, 'link', 'add', `k8b-${hex}${i}`, 'type', 'veth', 'peer', 'name', nodeIf, 'netns', name]);
      sh('ip', ['-n', lan, 'link', 'set', `k8b-${hex}${i}`, 'master', 'br0', 'up']);
      sh('ip', ['-n', name, 'addr', 'add', `${nodeIP}/28`, 'dev', nodeIf]);
      sh('ip', ['-n', name, 'link', 'set', nodeIf, 'up']);
      const uplink = setUpNodeInside(name, `${hex}${i}`);
      nodes.push(nodeHandle(name, hostIP, nodeIP, hostIf, uplink, () => void spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' })));
    });
  } catch (e) {
    removeAll();
    throw e;
  }
  return { hostIP, prefixLen: 28, nodes, remove: removeAll };
}
