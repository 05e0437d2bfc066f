/**
 * Reads a kubeconfig (`--kubeconfig`, else $KUBECONFIG's first file, else ~/.kube/config)
 * into a client of its current context: server, CA, client certificate or token, as
 * kubectl does for the common fields (`*-data` inline or file paths).
 *
 * @see https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { RestClient } from '../client/rest-client.js';
import { HttpsTransport } from '../client/transport.js';

interface Named<T> {
  name: string;
  [k: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

/** The kubeconfig file kubectl would use. */
export function kubeconfigPath(flag?: string): string {
  if (flag) return resolve(flag);
  const env = process.env.KUBECONFIG?.split(':').find(Boolean);
  return env ? resolve(env) : join(homedir(), '.kube', 'config');
}

/**
 * A client of the kubeconfig's current context.
 * @throws Error naming the file when it is missing or its current context is incomplete
 */
export function clientFromKubeconfig(path: string): { client: RestClient; server: string; transport: HttpsTransport } {
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const find = <T>(list: unknown, name: string): T | undefined => (list as Named<T>[] | undefined)?.find((x) => x.name === name) as T | undefined;
  const ctx = (find<Named<Record<string, string>>>(doc.contexts, String(doc['current-context'] ?? '')) ?? {}).context ?? {};
  const cluster = (find<Named<Record<string, string>>>(doc.clusters, ctx.cluster ?? '') ?? {}).cluster;
  const user = (find<Named<Record<string, string>>>(doc.users, ctx.user ?? '') ?? {}).user ?? {};
  if (!cluster?.server) throw new Error(`${path}: the current context has no cluster server`);
  const base = dirname(path);
  const data = (inline: string | undefined, file: string | undefined): string | undefined =>
    inline ? Buffer.from(inline, 'base64').toString('utf8') : file ? readFileSync(isAbsolute(file) ? file : join(base, file), 'utf8') : undefined;
  const transport = new HttpsTransport({
    server: cluster.server,
    ca: data(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: data(user['client-certificate-data'], user['client-certificate']),
    key: data(user['client-key-data'], user['client-key']),
    token: user.token,
    insecureSkipTLSVerify: String(cluster['insecure-skip-tls-verify']) === 'true',
  });
  return { client: new RestClient(transport, { userAgent: 'k8ts-trace/v1.32.0' }), server: cluster.server, transport };
}
