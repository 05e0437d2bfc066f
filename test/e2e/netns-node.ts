/**
 * A real `k8ts agent` node in its own network namespace, for the Services networking
 * e2e tests: the namespace and veth link (test/support/netns.ts), a private containerd
 * started inside it (its CNI bridge and pods live there, on a 10.250.N.0/24 of the
 * cluster CIDR 10.250.0.0/16), and `nsenter --net=… k8ts agent` joining the server with
 * the server's join token, with its kubelet, service proxy and containment routes inside.
 * The host reaches the node at `nodeIP` and its pods through a route via the veth; the
 * node reaches the API server at the veth's host end, where the server listens
 * (`--bind-address`). Every iptables rule and route the agent makes is in the namespace;
 * `stop()` kills the agent, removes the containerd and its pods and deletes the namespace.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createNodeNetns, type NodeNetns } from '../support/netns.js';
import { startTestContainerd, type TestContainerd } from '../support/containerd.js';
import { ROOT, type Cluster } from './harness.js';

/** The cluster CIDR the server and agents of these tests use. */
export const TEST_CLUSTER_CIDR = '10.250.0.0/16';
export const TEST_SERVICE_CIDR = '10.96.0.0/12';

export interface NetnsNode {
  name: string;
  ns: NodeNetns;
  ctrd: TestContainerd;
  /** the node's pod CIDR (its CNI bridge's subnet, also its Node spec.podCIDR) */
  podCIDR: string;
  /** agent output so far */
  log(): string;
  /** runs a command inside the node's namespace */
  exec(cmd: string, args: string[]): string;
  /** `iptables-save` inside the node's namespace */
  iptablesSave(table?: 'nat' | 'filter'): string;
  stop(): Promise<void>;
}

/** The namespace and veth of a node: create it first, so the server can listen on its host end. */
export function prepareNodeNetns(): NodeNetns {
  return createNodeNetns();
}

/**
 * Starts containerd in `ns` and joins an agent named `name` to `cluster` (whose server
 * listens on `ns.hostIP`). Pre-creates the Node with its pod CIDR so the node IPAM gives it
 * the bridge's subnet.
 */
export async function startNetnsNode(cluster: Cluster, ns: NodeNetns, name: string, registryHost: string, extraArgs: string[] = []): Promise<NetnsNode> {
  let ctrd: TestContainerd | undefined;
  let agent: ChildProcess | undefined;
  let out = '';
  const stop = async (): Promise<void> => {
    if (agent && agent.exitCode === null && agent.signalCode === null) {
      const exited = new Promise((r) => agent!.once('exit', r));
      agent.kill('SIGTERM');
      const t = setTimeout(() => agent!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    await ctrd?.stop().catch(() => undefined);
  };
  try {
    ctrd = await startTestContainerd({ mirror: registryHost, netnsPath: ns.path, podCIDR: pickPodCIDR() });
    ns.routeFromHost(ctrd.podCIDR);
    const nodeYaml = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
      spec: { podCIDR: ctrd.podCIDR, podCIDRs: [ctrd.podCIDR] },
    });
    const r = cluster.kubectl(['create', '-f', '-'], { input: nodeYaml });
    if (r.code !== 0) throw new Error(`creating Node ${name}: ${r.stderr}`);
    agent = spawn(
      'nsenter',
      [
        `--net=${ns.path}`,
        '--',
        process.execPath,
        join(ROOT, 'dist/k8ts.mjs'),
        'agent',
        '--server',
        `https://${ns.hostIP}:${cluster.port}`,
        '--token-file',
        join(cluster.dir, 'node-token'),
        '--node-name',
        name,
        '--data-dir',
        join(cluster.dir, `agent-${name}`),
        '--runtime',
        'remote',
        '--container-runtime-endpoint',
        ctrd.endpoint,
        '--cgroup-root',
        ctrd.cgroupParent,
        '--node-ip',
        ns.nodeIP,
        '--cluster-cidr',
        TEST_CLUSTER_CIDR,
        '--service-cidr',
        TEST_SERVICE_CIDR,
        ...extraArgs,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    agent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    agent.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  } catch (e) {
    await stop();
    throw e;
  }
  const c = ctrd;
  return {
    name,
    ns,
    ctrd: c,
    podCIDR: c.podCIDR,
    log: () => out,
    exec: (cmd, args) => ns.exec(cmd, args),
    iptablesSave: (table) => ns.exec('iptables-save', table ? ['-t', table] : []),
    stop,
  };
}

/** Subnets given to nodes of this process (several nodes start at once, before their host routes exist). */
const picked = new Set<number>();

/** An unused 10.250.N.0/24 (no route of this host points into it, not given to another node here). */
function pickPodCIDR(): string {
  const routes = spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? '';
  for (let i = 0; i < 64; i++) {
    const n = 1 + Math.floor(Math.random() * 254);
    if (!routes.includes(`10.250.${n}.`) && !picked.has(n)) {
      picked.add(n);
      return `10.250.${n}.0/24`;
    }
  }
  throw new Error('no free 10.250.N.0/24 subnet for a test node');
}
