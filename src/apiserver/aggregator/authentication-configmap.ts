/**
 * `kube-system/extension-apiserver-authentication` (upstream's cluster authentication
 * trust controller): what an extension API server needs to trust the aggregator — the CA
 * of client certificates (`client-ca-file`), the front-proxy CA
 * (`requestheader-client-ca-file`), the front-proxy client names it may accept
 * (`requestheader-allowed-names`) and the header names (`requestheader-username-headers`,
 * `requestheader-group-headers`, `requestheader-extra-headers-prefix`), the lists as JSON
 * arrays. Written at start-up; the Role `extension-apiserver-authentication-reader`
 * (bootstrap RBAC) lets extension servers read it.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controlplane/controller/clusterauthenticationtrust/cluster_authentication_trust_controller.go
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import { type Client, R } from '../../client/types.js';

const NAME = 'extension-apiserver-authentication';

export interface ClusterAuthenticationInfo {
  /** PEM CA of client certificates (upstream --client-ca-file) */
  clientCA: string;
  /** PEM CA of front-proxy client certificates (upstream --requestheader-client-ca-file) */
  requestHeaderCA: string;
  /** upstream --requestheader-allowed-names (default front-proxy-client, as kubeadm) */
  allowedNames?: string[];
}

/** The ConfigMap's data for `info`. */
export function authenticationConfigMapData(info: ClusterAuthenticationInfo): Record<string, string> {
  return {
    'client-ca-file': info.clientCA,
    'requestheader-allowed-names': JSON.stringify(info.allowedNames ?? ['front-proxy-client']),
    'requestheader-client-ca-file': info.requestHeaderCA,
    'requestheader-extra-headers-prefix': JSON.stringify(['X-Remote-Extra-']),
    'requestheader-group-headers': JSON.stringify(['X-Remote-Group']),
    'requestheader-username-headers': JSON.stringify(['X-Remote-User']),
  };
}

/** Creates or updates the ConfigMap so its data is `info`'s. */
export async function ensureAuthenticationConfigMap(client: Client, info: ClusterAuthenticationInfo): Promise<void> {
  const data = authenticationConfigMapData(info);
  let cur: ConfigMap & KObject;
  try {
    cur = await client.get<ConfigMap & KObject>(R.configmaps, 'kube-system', NAME);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    try {
      await client.create(R.configmaps, 'kube-system', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: NAME, namespace: 'kube-system' }, data });
      return;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      cur = await client.get<ConfigMap & KObject>(R.configmaps, 'kube-system', NAME);
    }
  }
  if (JSON.stringify(cur.data ?? {}) === JSON.stringify(data)) return;
  await client.update(R.configmaps, 'kube-system', { ...cur, data });
}
