/**
 * Writes a kubeconfig (clientcmd v1 Config) that uses the admin client certificate.
 *
 * @see https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  server: string;
  caPEM: string;
  certPEM: string;
  keyPEM: string;
  clusterName?: string;
  userName?: string;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

export function kubeconfigYAML(o: KubeconfigOptions): string {
  const cluster = o.clusterName ?? 'k8ts';
  const user = o.userName ?? 'kubernetes-admin';
  const ctx = `${user}@${cluster}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: o.server, 'certificate-authority-data': b64(o.caPEM) } }],
    users: [{ name: user, user: { 'client-certificate-data': b64(o.certPEM), 'client-key-data': b64(o.keyPEM) } }],
    contexts: [{ name: ctx, context: { cluster, user } }],
    'current-context': ctx,
    preferences: {},
  });
}

/** Writes the file with mode 0600 (it holds a private key). */
export function writeKubeconfig(path: string, o: KubeconfigOptions): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYAML(o), { mode: 0o600 });
}
