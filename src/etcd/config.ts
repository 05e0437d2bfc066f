/**
 * A managed etcd member's settings and its etcd configuration file
 * (`<data-dir>/etcd/config.yaml`, etcd's `--config-file` format), as k3s writes
 * `<data-dir>/server/db/etcd/config`: the member's name, URLs, initial cluster, TLS with
 * client-certificate authentication on both the client and the peer port, and k3s'
 * timings (heartbeat 500 ms, election timeout 5 s). `--etcd-arg key=value` entries are
 * merged in last (etcd ignores command-line flags when given a config file).
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/etcd/etcd.go (cluster(): the ETCDConfig k3s builds)
 * @see https://etcd.io/docs/v3.4/op-guide/configuration/
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { EtcdPKI } from './pki.js';

/** k3s' etcd ports. */
export const DEFAULT_ETCD_PORTS = { client: 2379, peer: 2380, metrics: 2381 } as const;

/** The ports a member listens on (several servers on one machine need their own). */
export interface EtcdPorts {
  client: number;
  peer: number;
  /** plain-HTTP `/metrics` and `/health` on 127.0.0.1 (kubeadm's probe port) */
  metrics: number;
}

/** Everything needed to run one member. */
export interface MemberConfig {
  /** unique member name, `<node>-<8 hex>` (k3s), kept in `<data-dir>/etcd/name` */
  name: string;
  /** etcd's data dir: `<data-dir>/etcd` (member/ below it) */
  dataDir: string;
  /** the address other members and servers reach this one at */
  address: string;
  ports: EtcdPorts;
  pki: EtcdPKI;
  /** `new` for the first member (or a reset), `existing` when joining */
  initialClusterState: 'new' | 'existing';
  /** `name=peerURL,…` of every member, this one included */
  initialCluster: string;
  /** start as a new single-member cluster from the data dir (k3s --cluster-reset) */
  forceNewCluster?: boolean;
  /** `--etcd-arg key=value` overrides */
  extraArgs?: Record<string, string>;
}

const host = (a: string): string => (a.includes(':') ? `[${a}]` : a);

/** The member's client URL (advertised): `https://<address>:<client port>`. */
export const clientURL = (c: Pick<MemberConfig, 'address' | 'ports'>): string => `https://${host(c.address)}:${c.ports.client}`;
/** The member's peer URL: `https://<address>:<peer port>`. */
export const peerURL = (c: Pick<MemberConfig, 'address' | 'ports'>): string => `https://${host(c.address)}:${c.ports.peer}`;
/** The client URL on loopback the local API server uses (k3s: https://127.0.0.1:2379). */
export const localClientURL = (c: Pick<MemberConfig, 'ports'>): string => `https://127.0.0.1:${c.ports.client}`;
/** `/health` on the metrics listener. */
export const healthURL = (c: Pick<MemberConfig, 'ports'>): string => `http://127.0.0.1:${c.ports.metrics}/health`;

/** `<data-dir>/etcd`. */
export const etcdDir = (dataDir: string): string => join(dataDir, 'etcd');

/** True when the member has data already (etcd's WAL exists): start it as it is, no join. @see k3s IsInitialized */
export function isInitialized(dataDir: string): boolean {
  return existsSync(join(etcdDir(dataDir), 'member', 'wal'));
}

/**
 * The member name of this data dir: read from `<data-dir>/etcd/name`, or a new
 * `<node>-<8 hex>` written there (also when `renew`, as k3s does on a reset).
 */
export function memberName(dataDir: string, node: string, renew = false): string {
  const f = join(etcdDir(dataDir), 'name');
  if (!renew && existsSync(f)) return readFileSync(f, 'utf8').trim();
  mkdirSync(etcdDir(dataDir), { recursive: true, mode: 0o700 });
  const name = `${node}-${randomBytes(4).toString('hex')}`;
  writeFileSync(f, name, { mode: 0o600 });
  return name;
}

/** A `--etcd-arg` value as YAML: numbers and booleans typed, the rest strings. */
function typed(v: string): string | number | boolean {
  if (v === 'true' || v === 'false') return v === 'true';
  return /^-?\d+$/.test(v) ? Number(v) : v;
}

/**
 * Parses `--etcd-arg` entries (`key=value`, an optional leading `--`).
 * @throws Error naming the entry when it has no `=`
 */
export function parseEtcdArgs(list: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of list) {
    const i = a.indexOf('=');
    if (i <= 0) throw new Error(`invalid value for --etcd-arg: ${JSON.stringify(a)}: want key=value (an etcd flag without its dashes)`);
    out[a.slice(0, i).replace(/^--?/, '')] = a.slice(i + 1);
  }
  return out;
}

/** The etcd configuration file's content for `c`. */
export function etcdConfigYAML(c: MemberConfig): string {
  const listenClient = [...new Set([clientURL(c), localClientURL(c)])].join(',');
  const tls = (cert: string, key: string) => ({ 'cert-file': cert, 'key-file': key, 'client-cert-auth': true, 'trusted-ca-file': c.pki.ca.cert });
  const cfg: Record<string, unknown> = {
    name: c.name,
    'data-dir': c.dataDir,
    'listen-client-urls': listenClient,
    'advertise-client-urls': clientURL(c),
    'listen-peer-urls': peerURL(c),
    'initial-advertise-peer-urls': peerURL(c),
    'initial-cluster': c.initialCluster,
    'initial-cluster-state': c.initialClusterState,
    'listen-metrics-urls': `http://127.0.0.1:${c.ports.metrics}`,
    'heartbeat-interval': 500,
    'election-timeout': 5000,
    'client-transport-security': tls(c.pki.server.cert, c.pki.server.key),
    'peer-transport-security': tls(c.pki.peer.cert, c.pki.peer.key),
    logger: 'zap',
    'log-outputs': ['stderr'],
  };
  if (c.forceNewCluster) cfg['force-new-cluster'] = true;
  for (const [k, v] of Object.entries(c.extraArgs ?? {})) cfg[k] = typed(v);
  return stringify(cfg);
}

/** Writes `<data-dir>/etcd/config.yaml` for `c`; returns its path. */
export function writeEtcdConfig(c: MemberConfig): string {
  mkdirSync(c.dataDir, { recursive: true, mode: 0o700 });
  const f = join(c.dataDir, 'config.yaml');
  writeFileSync(f, etcdConfigYAML(c), { mode: 0o600 });
  return f;
}
