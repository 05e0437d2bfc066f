/**
 * `k8ts server`'s managed-etcd flags (k3s' names where k3s has them): `--cluster-init`,
 * `--server` with `--token`/`--token-file` (join as another control-plane server),
 * `--cluster-reset` and `--cluster-reset-restore-path`, `--etcd-arg`; and k8ts' own
 * `--etcd-client-port`, `--etcd-peer-port`, `--etcd-metrics-port` (k3s uses 2379–2381
 * always; several servers on one machine need their own). Also the `etcd-<node>` pod of
 * the member.
 *
 * @see https://docs.k3s.io/cli/server#cluster-options
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../api/resource.js';
import { isAlreadyExists } from '../apimachinery/errors.js';
import { R, type Client } from '../client/types.js';
import type { ManagedEtcd, ManagedEtcdOptions } from '../etcd/managed.js';
import { DEFAULT_ETCD_PORTS, parseEtcdArgs } from '../etcd/config.js';
import { etcdBinaryVersion } from '../etcd/supervisor.js';
import { clusterReset, RESET_DONE_MESSAGE } from '../etcd/reset.js';
import { defaultHostIP } from '../kubelet/nodestatus/setters.js';
import type { ControlPlaneComponent } from './control-plane-pods.js';
import { discoverCA, parseJoinToken } from './join-token.js';

/** Registers the flags on `cmd` (the `server` command). */
export function addManagedEtcdOptions(cmd: Command): Command {
  return cmd
    .option('--cluster-init', 'initialize a new cluster with a managed etcd member (instead of SQLite)')
    .option('--server <url>', 'join the cluster of this server as another control-plane server (managed etcd), e.g. https://10.0.0.1:6443')
    .option('--token <token>', 'with --server: the join token (<data-dir>/node-token of that server)')
    .option('--token-file <file>', 'with --server: file holding the join token')
    .option('--cluster-reset', "make this server's etcd member a new single-member cluster (keeping its data), then exit")
    .option('--cluster-reset-restore-path <file>', 'with --cluster-reset: restore this etcd snapshot first')
    .option('--etcd-arg <key=value>', 'extra etcd configuration (repeatable), e.g. heartbeat-interval=100', (v: string, prev: string[] = []) => [...prev, v])
    .option('--etcd-client-port <port>', 'client port of the managed etcd member', (v) => parseInt(v, 10), DEFAULT_ETCD_PORTS.client)
    .option('--etcd-peer-port <port>', 'peer port of the managed etcd member', (v) => parseInt(v, 10), DEFAULT_ETCD_PORTS.peer)
    .option('--etcd-metrics-port <port>', 'metrics and /health port (127.0.0.1, plain HTTP) of the managed etcd member', (v) => parseInt(v, 10), DEFAULT_ETCD_PORTS.metrics);
}

/** The parsed values of {@link addManagedEtcdOptions}' flags, as commander names them. */
export interface ManagedEtcdFlagValues {
  clusterInit?: boolean;
  server?: string;
  token?: string;
  tokenFile?: string;
  clusterReset?: boolean;
  clusterResetRestorePath?: string;
  etcdArg?: string[];
  etcdClientPort: number;
  etcdPeerPort: number;
  etcdMetricsPort: number;
  etcdServers?: string;
  dataDir: string;
  bindAddress: string;
  advertiseAddress?: string;
}

/** The member's address: `--advertise-address`, else the bind address, else (wildcard) the host's IPv4. */
export function memberAddress(o: Pick<ManagedEtcdFlagValues, 'bindAddress' | 'advertiseAddress'>): string {
  if (o.advertiseAddress) return o.advertiseAddress;
  return o.bindAddress === '0.0.0.0' || o.bindAddress === '::' ? defaultHostIP() : o.bindAddress;
}

/**
 * Turns the flags into the managed etcd's options; undefined when the server uses
 * SQLite or `--etcd-servers`. A joining server's token is written to its
 * `<data-dir>/node-token`, so it serves the same token.
 * @throws Error with a message for the user on conflicting or bad flags, an unreadable
 *   token, or a server that does not present the token's CA
 */
export async function managedEtcdFrom(o: ManagedEtcdFlagValues): Promise<Omit<ManagedEtcdOptions, 'dataDir' | 'nodeName' | 'log' | 'eventTTLSeconds'> | undefined> {
  const managed = !!(o.clusterInit || o.server || o.clusterReset);
  if (!managed) {
    if (o.token || o.tokenFile) throw new Error('--token and --token-file need --server');
    if (o.clusterResetRestorePath) throw new Error('--cluster-reset-restore-path needs --cluster-reset');
    return undefined;
  }
  if (o.etcdServers) throw new Error('--cluster-init, --server and --cluster-reset run a managed etcd: they cannot be used with --etcd-servers');
  if (o.clusterResetRestorePath && !o.clusterReset) throw new Error('--cluster-reset-restore-path needs --cluster-reset');
  for (const [f, v] of [
    ['etcd-client-port', o.etcdClientPort],
    ['etcd-peer-port', o.etcdPeerPort],
    ['etcd-metrics-port', o.etcdMetricsPort],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 65535) throw new Error(`invalid value for --${f}: ${v}`);
  }
  const ports = { client: o.etcdClientPort, peer: o.etcdPeerPort, metrics: o.etcdMetricsPort };
  const base = { address: memberAddress(o), ports, extraArgs: parseEtcdArgs(o.etcdArg ?? []) };
  if (!o.server || o.clusterReset) return base;
  const raw = o.token ?? (o.tokenFile ? readFileSync(o.tokenFile, 'utf8').trim() : undefined);
  if (!raw) throw new Error('--server needs --token or --token-file (the node-token of that server)');
  const tok = parseJoinToken(raw);
  const tokenFile = join(o.dataDir, 'node-token');
  mkdirSync(o.dataDir, { recursive: true });
  if (!existsSync(tokenFile)) writeFileSync(tokenFile, `${raw}\n`, { mode: 0o600 });
  if (!tok.caHash) throw new Error('the token carries no CA hash (K10<hash>::…): cannot verify the server');
  const caPEM = await discoverCA(o.server, tok.caHash);
  return { ...base, join: { server: o.server, caPEM, bearer: `${tok.id}.${tok.secret}` } };
}

/** The `etcd-<node>` control-plane pod of the member: its real command line and PID, healthy while `/health` says so. */
export function etcdPod(etcd: ManagedEtcd): ControlPlaneComponent {
  return {
    name: 'etcd',
    healthy: () => etcd.process.healthy(),
    child: {
      image: `registry.k8s.io/etcd:${etcdBinaryVersion()}-0`,
      command: ['etcd', `--config-file=${join(etcd.member.dataDir, 'config.yaml')}`],
      pid: () => etcd.process.pid,
      startedAt: () => etcd.process.startedAt,
      program: 'its own process (etcd), supervised by k8ts server',
    },
  };
}

/**
 * The podCIDR of a joined server's own node: the Node's, or — for a new Node, created
 * here without one — what the node IPAM controller (of any server) assigns, as for an
 * agent. (The first server's node takes the first /24 of the cluster CIDR itself.)
 * @throws Error when no podCIDR is assigned within `timeoutMs` (default 60 s)
 */
export async function joinedNodePodCIDR(client: Client, nodeName: string, timeoutMs = 60_000): Promise<string> {
  try {
    await client.create(R.nodes, '', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux' } },
    });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await client.get<Node & KObject>(R.nodes, '', nodeName);
    if (n.spec?.podCIDR) return n.spec.podCIDR;
    if (Date.now() > deadline) throw new Error(`node ${nodeName} got no podCIDR in ${timeoutMs / 1000} s (is a node-ipam controller running?)`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * `k8ts server --cluster-reset`: resets the member (src/etcd/reset.ts), prints k3s'
 * message and resolves; the caller exits.
 * @throws Error with a message for the user when the reset fails
 */
export async function runClusterReset(o: ManagedEtcdFlagValues & { nodeName: string }): Promise<void> {
  const base = await managedEtcdFrom(o);
  if (!base) throw new Error('--cluster-reset needs a managed etcd');
  await clusterReset({ ...base, dataDir: resolve(o.dataDir), nodeName: o.nodeName, restorePath: o.clusterResetRestorePath, log: (m) => console.log(m) });
  console.log(RESET_DONE_MESSAGE);
}
