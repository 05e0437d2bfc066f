/**
 * Joining a server to a cluster with managed etcd, as k3s does (`k3s server --server
 * https://<first>:6443 --token …`):
 *
 * 1. trust: the first server's CA, checked against the token's `K10<sha256>` hash;
 * 2. `GET /v1-k8ts/server-bootstrap` with the token's bootstrap token: the CAs and
 *    the ServiceAccount key (bootstrap-data.ts);
 * 3. `GET /db/info`: the etcd members and their client URLs;
 * 4. etcd `MemberAdd` of this member's peer URL through those members' client URLs
 *    (with the API server's etcd client certificate, signed by the shared etcd CA);
 * 5. the member then starts with `initial-cluster-state: existing` and the member list.
 *
 * k3s adds the member as a learner and promotes it later; this adds a voting member at
 * once (etcd's runtime-reconfiguration recipe), which with etcd's strict reconfiguration
 * check is refused while too few members are started, so the add is retried.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/etcd/etcd.go (join, ClientURLs)
 * @see https://etcd.io/docs/v3.4/op-guide/runtime-configuration/#add-a-new-member
 */
import { request } from 'node:https';
import { EtcdClient, type RawMember } from '../storage/etcd/client.js';
import { type BootstrapData, SERVER_BOOTSTRAP_PATH } from './bootstrap-data.js';
import type { EtcdPKI } from './pki.js';

/** How to reach the first server. */
export interface JoinTarget {
  /** `https://<server>:6443` */
  server: string;
  /** the cluster CA (already checked against the token's hash) */
  caPEM: string;
  /** the bootstrap token `<id>.<secret>` */
  bearer: string;
}

/**
 * GET `path` on the server with the bootstrap token; resolves with the parsed JSON.
 * @throws Error with the status and body on a non-200 answer or a transport failure
 */
export function supervisorGet<T>(t: JoinTarget, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, t.server);
    const req = request(
      u,
      { ca: t.caPEM, headers: { Authorization: `Bearer ${t.bearer}`, Accept: 'application/json' }, timeout: 15_000, servername: /^[\d.]+$/.test(u.hostname) ? '' : u.hostname },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${u.href}: ${res.statusCode}: ${body.trim()}`));
          try {
            resolve(JSON.parse(body) as T);
          } catch (err) {
            reject(new Error(`GET ${u.href}: invalid JSON: ${(err as Error).message}`));
          }
        });
      },
    );
    req.on('error', (err) => reject(new Error(`GET ${u.href}: ${err.message}`)));
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.end();
  });
}

/** Fetches the cluster's shared key material. */
export const fetchBootstrapData = (t: JoinTarget): Promise<BootstrapData> => supervisorGet<BootstrapData>(t, SERVER_BOOTSTRAP_PATH);

/** Fetches the etcd members (`/db/info`, k3s' body `{members: [...]}`). */
export async function fetchMembers(t: JoinTarget): Promise<RawMember[]> {
  const r = await supervisorGet<{ members?: RawMember[] }>(t, '/db/info');
  return r.members ?? [];
}

/** An etcd client to `endpoints` with the API server's client certificate of `pki`. */
export function memberClient(pki: EtcdPKI, endpoints: string[]): EtcdClient {
  return new EtcdClient({ endpoints, caFile: pki.ca.cert, certFile: pki.apiserverClient.cert, keyFile: pki.apiserverClient.key, requestTimeoutMs: 10_000 });
}

/** `name=peerURL,…` of `members` (members not started yet have no name and are left out). */
export function initialCluster(members: RawMember[]): string {
  return members
    .filter((m) => m.name && m.peerURLs.length)
    .map((m) => `${m.name}=${m.peerURLs[0]}`)
    .join(',');
}

/** etcd refusals a retry may get past (a member still starting, a leader election). */
const RETRYABLE = /not enough started members|unhealthy cluster|leader changed|no leader|timed out|deadline|unavailable|connection/i;

/**
 * Adds this member (`name` at `peer`) to the cluster `members` belong to, unless it is
 * in already (a restart after the add). Resolves with `initial-cluster` for the new member.
 * @param clientURLs the started members' client URLs (this member's own left out)
 * @throws Error when etcd refuses the add for `timeoutMs` (default 60 s)
 */
export async function addMember(pki: EtcdPKI, clientURLs: string[], name: string, peer: string, timeoutMs = 60_000, log: (m: string) => void = () => undefined): Promise<string> {
  if (clientURLs.length === 0) throw new Error('no etcd member to join: the server reported no client URLs (/db/info)');
  const client = memberClient(pki, clientURLs);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const members = await client.memberList();
        const mine = members.find((m) => m.peerURLs.includes(peer));
        if (mine) {
          if (mine.name && mine.name !== name) throw new Error(`peer URL ${peer} belongs to member ${mine.name} already (another server on this address and port?)`);
          return initialCluster(members.map((m) => (m === mine ? { ...m, name } : m)));
        }
        log(`Adding member ${name}=${peer} to etcd cluster ${initialCluster(members)}`);
        const added = await client.memberAdd([peer]);
        return initialCluster(added.members.map((m) => (m.ID === added.member.ID ? { ...m, name } : m)));
      } catch (err) {
        const msg = (err as { details?: string }).details || (err as Error).message;
        if (!RETRYABLE.test(msg) || Date.now() > deadline) throw new Error(`etcd member add of ${name}=${peer} failed: ${msg}`);
        log(`etcd member add: ${msg}; retrying`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    client.close();
  }
}
