/**
 * `k8ts server --cluster-init` / `--server <url>`: the server's own etcd member, set up
 * and supervised as k3s' managed etcd does (pkg/etcd):
 *
 * - first start with `--cluster-init`: a new single-member cluster; existing SQLite data
 *   of the data dir is migrated into it (migrate.ts), as k3s does;
 * - first start with `--server` and a token: the shared CAs from that server, then
 *   MemberAdd and a member started with `initial-cluster-state: existing` (join.ts);
 * - any later start: the member as its data dir has it (k3s `IsInitialized`), whatever
 *   the flags — so a killed server that comes back rejoins with its own identity.
 *
 * The API server of this process then uses the member at `https://127.0.0.1:<client>`
 * with `<data-dir>/tls/apiserver-etcd-client.*`. The server serves `/db/info` (the
 * members, k3s' path) and `/v1-k8ts/server-bootstrap` to servers that join.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/etcd/etcd.go
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ApiRequest, ResponseWriter } from '../apiserver/http/types.js';
import type { OpenEtcdOptions } from '../storage/index.js';
import type { EtcdClient } from '../storage/etcd/client.js';
import { BOOTSTRAP_FILES, mayJoin, NODE_TOKEN_GROUP, replyJSON, SERVER_BOOTSTRAP_PATH, serverBootstrapHandler, writeBootstrapData } from './bootstrap-data.js';
import { clientURL, etcdDir, type EtcdPorts, healthURL, isInitialized, localClientURL, type MemberConfig, memberName, peerURL, writeEtcdConfig } from './config.js';
import { addMember, fetchBootstrapData, fetchMembers, type JoinTarget, memberClient } from './join.js';
import { migrateFromSQLite } from './migrate.js';
import { ensureEtcdPKI, type EtcdPKI } from './pki.js';
import { type EtcdProcess, startEtcdProcess } from './supervisor.js';

export interface ManagedEtcdOptions {
  dataDir: string;
  /** the server's node name: member names are `<node>-<8 hex>` */
  nodeName: string;
  /** the address other servers reach this member at (peer and client URLs) */
  address: string;
  ports: EtcdPorts;
  /** `--etcd-arg` overrides of the member's configuration */
  extraArgs?: Record<string, string>;
  /** join the cluster of this server (first start only) */
  join?: JoinTarget;
  /** how long to wait for the member to become healthy, ms; default 120 000 */
  healthTimeoutMs?: number;
  /** progress messages (the kube-apiserver log) */
  log?: (message: string) => void;
  /** `--event-ttl`, seconds: the lease of migrated Events */
  eventTTLSeconds?: number;
}

export interface ManagedEtcd {
  member: MemberConfig;
  /** the API server's storage: the local member over TLS */
  storage: OpenEtcdOptions;
  process: EtcdProcess;
  /** `/db/info` and `/v1-k8ts/server-bootstrap` for the API server's extra paths */
  extraPaths: Record<string, (req: ApiRequest, res: ResponseWriter) => void | Promise<void>>;
  /** where etcd's log lines go from now on (lines before are kept, up to 500) */
  setLogSink(write: (line: string) => void): void;
  stop(): Promise<void>;
}

/**
 * Makes sure `<data-dir>` holds the cluster's shared key material: fetched from the first
 * server when absent; an existing file must equal the cluster's.
 * @throws Error when a local file differs (a data dir of another cluster)
 */
async function bootstrapFromServer(dataDir: string, t: JoinTarget): Promise<void> {
  const data = await fetchBootstrapData(t);
  for (const f of BOOTSTRAP_FILES) {
    const p = join(dataDir, f);
    if (existsSync(p) && data[f] && readFileSync(p, 'utf8') !== data[f].content) {
      throw new Error(`${p} differs from the cluster's (${t.server}): this data dir belongs to another cluster; join with a fresh --data-dir`);
    }
  }
  writeBootstrapData(dataDir, data);
}

/** The `/db/info` handler: the members as the local member sees them (k3s' body `{members}`). */
function dbInfoHandler(client: () => EtcdClient, self: () => MemberConfig): (req: ApiRequest, res: ResponseWriter) => Promise<void> {
  return async (req, res) => {
    if (req.method !== 'GET') return replyJSON(res, 405, { message: 'method not allowed: GET only' });
    if (!mayJoin(req)) return replyJSON(res, 403, { message: `forbidden: only the node token (${NODE_TOKEN_GROUP}) may read the etcd members` });
    try {
      replyJSON(res, 200, { members: await client().memberList() });
    } catch {
      // as k3s: when the list fails, at least this member
      const m = self();
      replyJSON(res, 200, { members: [{ ID: '0', name: m.name, peerURLs: [peerURL(m)], clientURLs: [clientURL(m)], isLearner: false }] });
    }
  };
}

/**
 * Sets up and starts the member, waits until it is healthy (has a leader and quorum).
 * @throws Error when the join or the start fails (with etcd's log tail)
 */
export async function startManagedEtcd(o: ManagedEtcdOptions): Promise<ManagedEtcd> {
  const log = o.log ?? (() => undefined);
  const initialized = isInitialized(o.dataDir);
  if (o.join && !initialized) await bootstrapFromServer(o.dataDir, o.join);
  const pki: EtcdPKI = await ensureEtcdPKI(o.dataDir, o.nodeName, [hostname().toLowerCase()], [o.address]);
  const name = memberName(o.dataDir, o.nodeName);
  const base = { name, dataDir: etcdDir(o.dataDir), address: o.address, ports: o.ports, pki, extraArgs: o.extraArgs };
  let member: MemberConfig = { ...base, initialClusterState: 'new', initialCluster: `${name}=${peerURL(base)}` };
  if (o.join && !initialized) {
    const mine = new Set([clientURL(base), localClientURL(base)]);
    const members = await fetchMembers(o.join);
    const urls = members.filter((m) => !m.isLearner).flatMap((m) => m.clientURLs.filter((u) => !mine.has(u)));
    const cluster = await addMember(pki, urls, name, peerURL(base), 60_000, log);
    member = { ...base, initialClusterState: 'existing', initialCluster: cluster };
  }
  writeEtcdConfig(member);
  log(`Starting etcd member ${name} (${initialized ? 'existing data' : `initial cluster ${member.initialCluster}, state ${member.initialClusterState}`})`);
  const early: string[] = [];
  let sink: ((line: string) => void) | undefined;
  const proc = startEtcdProcess({
    dir: member.dataDir,
    healthURL: healthURL(member),
    onLine: (l) => (sink ? sink(l) : early.length < 500 && early.push(l)),
    onEvent: log,
  });
  try {
    await proc.waitHealthy(o.healthTimeoutMs ?? 120_000);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  const storage: OpenEtcdOptions = {
    kind: 'etcd',
    endpoints: [localClientURL(member)],
    caFile: pki.ca.cert,
    certFile: pki.apiserverClient.cert,
    keyFile: pki.apiserverClient.key,
  };
  if (!initialized && !o.join) {
    try {
      await migrateFromSQLite(o.dataDir, storage, { eventTTLSeconds: o.eventTTLSeconds ?? 3600, log });
    } catch (err) {
      // the new member holds a partial copy: drop it, so the next start migrates again
      await proc.stop();
      rmSync(join(member.dataDir, 'member'), { recursive: true, force: true });
      throw new Error(`migrating the SQLite database to etcd failed (state.db is untouched): ${(err as Error).message}`, { cause: err });
    }
  }
  let local: EtcdClient | undefined;
  const client = () => (local ??= memberClient(pki, [localClientURL(member)]));
  return {
    member,
    storage,
    process: proc,
    extraPaths: { '/db/info': dbInfoHandler(client, () => member), [SERVER_BOOTSTRAP_PATH]: serverBootstrapHandler(o.dataDir) },
    setLogSink(write) {
      sink = write;
      for (const l of early.splice(0)) write(l);
    },
    async stop() {
      local?.close();
      await proc.stop();
    },
  };
}
