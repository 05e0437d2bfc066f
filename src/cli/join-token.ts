/**
 * Node join tokens, in the manner of k3s: `K10<sha256 of the cluster CA cert>::<id>.<secret>`.
 * The `<id>.<secret>` part is a bootstrap token (Secret kube-system/bootstrap-token-<id>,
 * group system:bootstrappers) that lets a new node post a CertificateSigningRequest for its
 * kubelet client certificate; the CA hash lets the node trust the server it has never seen
 * (the server sends the CA in its TLS chain; the node checks the hash).
 *
 * @see https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/
 * @see https://docs.k3s.io/cli/token
 */
import { createHash, randomInt, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type PeerCertificate, type DetailedPeerCertificate } from 'node:tls';
import { bootstrapTokenSecret } from '../apiserver/authn/bootstrap-token.js';
import { isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import type { Client } from '../client/types.js';
import { R } from '../client/types.js';

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const rand = (n: number): string => Array.from({ length: n }, () => ALNUM[randomInt(ALNUM.length)]).join('');

/** SHA-256 (hex) of a PEM certificate's DER bytes. */
export function caHash(caPEM: string): string {
  return createHash('sha256').update(new X509Certificate(caPEM).raw).digest('hex');
}

export interface JoinToken {
  /** hex SHA-256 of the CA certificate, when the token carries one */
  caHash?: string;
  id: string;
  secret: string;
}

/**
 * Parses `K10<hash>::<id>.<secret>` or a bare bootstrap token `<id>.<secret>`.
 * @throws Error for malformed tokens
 */
export function parseJoinToken(t: string): JoinToken {
  const m = /^(?:K10([0-9a-f]{64})::)?([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(t.trim());
  if (!m) throw new Error('invalid token: expected K10<ca-sha256>::<id>.<secret> (see <server data-dir>/node-token)');
  return { caHash: m[1], id: m[2]!, secret: m[3]! };
}

/**
 * Makes sure the server has a node join token: the bootstrap token Secret exists and
 * `<file>` holds the full token. Returns the token.
 */
export async function ensureNodeToken(client: Client, file: string, caPEM: string): Promise<string> {
  let tok: JoinToken | undefined;
  if (existsSync(file)) {
    try {
      tok = parseJoinToken(readFileSync(file, 'utf8'));
    } catch {
      tok = undefined;
    }
  }
  tok ??= { id: rand(6), secret: rand(16) };
  const name = `bootstrap-token-${tok.id}`;
  try {
    await client.get(R.secrets, 'kube-system', name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    const secret = bootstrapTokenSecret(tok.id, tok.secret, {
      extraGroups: ['system:bootstrappers:k8ts:default-node-token'],
      description: 'k8ts node join token (k8ts agent --token)',
    });
    try {
      await client.create(R.secrets, 'kube-system', secret as never);
    } catch (e2) {
      if (!isAlreadyExists(e2)) throw e2;
    }
  }
  const full = `K10${caHash(caPEM)}::${tok.id}.${tok.secret}`;
  writeFileSync(file, `${full}\n`, { mode: 0o600 });
  return full;
}

/**
 * Fetches the CA a server presents at the end of its TLS chain and checks it against
 * `expectedHash`. Returns the CA certificate (PEM).
 * @throws Error when the server sends no CA or a CA with another hash
 */
export async function discoverCA(serverURL: string, expectedHash: string): Promise<string> {
  const u = new URL(serverURL);
  const chain = await new Promise<DetailedPeerCertificate>((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port || 443), rejectUnauthorized: false, servername: /^[\d.]+$/.test(u.hostname) ? undefined : u.hostname }, () => {
      const c = s.getPeerCertificate(true);
      s.end();
      resolve(c);
    });
    s.on('error', reject);
    s.setTimeout(10_000, () => s.destroy(new Error(`timed out connecting to ${serverURL}`)));
  });
  let c: PeerCertificate | DetailedPeerCertificate | undefined = chain;
  const seen = new Set<string>();
  while (c && c.raw && !seen.has(c.fingerprint256)) {
    seen.add(c.fingerprint256);
    const der = c.raw;
    if (createHash('sha256').update(der).digest('hex') === expectedHash) {
      const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
      return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
    }
    c = (c as DetailedPeerCertificate).issuerCertificate;
  }
  throw new Error(`the server at ${serverURL} did not present a CA matching the token's hash ${expectedHash.slice(0, 12)}…`);
}
