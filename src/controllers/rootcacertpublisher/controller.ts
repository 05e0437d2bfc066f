/**
 * root-ca-cert-publisher: every namespace has a ConfigMap `kube-root-ca.crt` with the
 * cluster CA in `ca.crt` (what the projected ServiceAccount token volume mounts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/certificates/rootcacertpublisher/publisher.go
 */
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import { Informer } from '../../client/informer.js';
import { R, type Client } from '../../client/types.js';

const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION = 'kubernetes.io/description';
const DESCRIPTION_TEXT =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/**
 * @param client writes ConfigMaps (ServiceAccount kube-system/root-ca-cert-publisher)
 * @param informerClient lists and watches (the controller manager's own identity, as upstream's shared informers)
 */
export async function startRootCACertPublisher(client: Client, caPEM: string, informerClient: Client = client): Promise<{ stop(): Promise<void> }> {
  const namespaces = new Informer<Namespace & KObject>(informerClient, R.namespaces);
  const cms = new Informer<ConfigMap & KObject>(informerClient, R.configmaps, { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });
  const sync = async (ns: string): Promise<void> => {
    const n = namespaces.getByName('', ns);
    if (!n || n.status?.phase === 'Terminating') return;
    const cur = cms.getByName(ns, ROOT_CA_CONFIGMAP);
    try {
      if (!cur) {
        await client.create(R.configmaps, ns, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIGMAP, namespace: ns, annotations: { [DESCRIPTION]: DESCRIPTION_TEXT } },
          data: { 'ca.crt': caPEM },
        });
      } else if (cur.data?.['ca.crt'] !== caPEM) {
        await client.update(R.configmaps, ns, { ...cur, data: { ...(cur.data ?? {}), 'ca.crt': caPEM } });
      }
    } catch (e) {
      if (!isAlreadyExists(e) && !isNotFound(e)) setTimeout(() => void sync(ns), 1000).unref();
    }
  };
  namespaces.addEventHandler({ add: (n) => void sync(n.metadata!.name!), update: (_o, n) => void sync(n.metadata!.name!) });
  cms.addEventHandler({ update: (_o, c) => void sync(c.metadata!.namespace!), delete: (c) => void sync(c.metadata!.namespace!) });
  cms.start();
  await cms.waitForSync();
  namespaces.start();
  await namespaces.waitForSync();
  return {
    async stop() {
      namespaces.stop();
      cms.stop();
    },
  };
}
