/**
 * The cluster's shared key material, as k3s hands it to a joining server
 * (`GET /v1-k3s/server-bootstrap`, authenticated by the server token): here
 * `GET /v1-k8ts/server-bootstrap` on the API server's port, for the node token's
 * bootstrap group (`system:bootstrappers:k8ts:default-node-token`, RBAC role
 * `k8ts:server-join`) and system:masters. The body is a JSON object from path (below
 * `<data-dir>/`) to `{content}` (PEM text): the cluster CA, the front-proxy CA, the
 * ServiceAccount signing key pair and the etcd CA — with them the new server issues its
 * own serving, client and member certificates that every other server trusts, and
 * verifies the ServiceAccount tokens the others issued.
 *
 * @see https://github.com/k3s-io/k3s/blob/master/pkg/bootstrap/bootstrap.go
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ApiRequest, ResponseWriter } from '../apiserver/http/types.js';

/** The path of the bootstrap endpoint. */
export const SERVER_BOOTSTRAP_PATH = '/v1-k8ts/server-bootstrap';
/** The group the node token's bootstrap token authenticates with. */
export const NODE_TOKEN_GROUP = 'system:bootstrappers:k8ts:default-node-token';

/** The files a joining server needs, relative to the data dir. */
export const BOOTSTRAP_FILES = [
  'tls/ca.crt',
  'tls/ca.key',
  'tls/front-proxy-ca.crt',
  'tls/front-proxy-ca.key',
  'tls/sa.key',
  'tls/sa.pub',
  'tls/etcd/ca.crt',
  'tls/etcd/ca.key',
] as const;

/** The bootstrap body: path → content. */
export type BootstrapData = Record<string, { content: string }>;

/** Reads the bootstrap files of `dataDir` (absent ones are left out). */
export function readBootstrapData(dataDir: string): BootstrapData {
  const out: BootstrapData = {};
  for (const f of BOOTSTRAP_FILES) {
    const p = join(dataDir, f);
    if (existsSync(p)) out[f] = { content: readFileSync(p, 'utf8') };
  }
  return out;
}

/**
 * Writes the bootstrap files into `dataDir`, keys with mode 0600.
 * @throws Error when a file of {@link BOOTSTRAP_FILES} is missing, or the body holds another path
 */
export function writeBootstrapData(dataDir: string, data: BootstrapData): void {
  for (const f of BOOTSTRAP_FILES) if (typeof data[f]?.content !== 'string') throw new Error(`server bootstrap data lacks ${f}`);
  for (const f of Object.keys(data)) if (!(BOOTSTRAP_FILES as readonly string[]).includes(f)) throw new Error(`server bootstrap data has an unexpected file ${JSON.stringify(f)}`);
  for (const f of BOOTSTRAP_FILES) {
    const p = join(dataDir, f);
    mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
    writeFileSync(p, data[f]!.content, { mode: f.endsWith('.key') ? 0o600 : 0o644 });
  }
}

/** True when `req`'s user may read the bootstrap data (the node token's group or system:masters). */
export function mayJoin(req: ApiRequest): boolean {
  const groups = req.user?.groups ?? [];
  return groups.includes(NODE_TOKEN_GROUP) || groups.includes('system:masters');
}

/** A JSON reply. */
export function replyJSON(res: ResponseWriter, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(`${JSON.stringify(body)}\n`);
}

/** The handler of {@link SERVER_BOOTSTRAP_PATH}: GET only (405 otherwise), 403 for other users. */
export function serverBootstrapHandler(dataDir: string): (req: ApiRequest, res: ResponseWriter) => void {
  return (req, res) => {
    if (req.method !== 'GET') return replyJSON(res, 405, { message: 'method not allowed: GET only' });
    if (!mayJoin(req)) return replyJSON(res, 403, { message: `forbidden: only the node token (${NODE_TOKEN_GROUP}) may read the server bootstrap data` });
    replyJSON(res, 200, readBootstrapData(dataDir));
  };
}
