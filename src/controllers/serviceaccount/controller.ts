/**
 * ServiceAccounts controller: every active namespace has a `default` ServiceAccount.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/serviceaccount/serviceaccounts_controller.go
 */
import type { Namespace as NamespaceT } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';

type Namespace = NamespaceT & KObject;
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import { Informer } from '../../client/informer.js';
import { R } from '../../client/types.js';
import type { ControllerContext, Running } from '../index.js';

export async function startServiceAccountController(ctx: ControllerContext): Promise<Running> {
  const { client } = ctx;
  const namespaces = new Informer<Namespace>(client, R.namespaces);
  const sas = new Informer(client, R.serviceaccounts, { fieldSelector: 'metadata.name=default' });
  const queue = new Set<string>();
  let scheduled = false;
  const enqueue = (ns: string): void => {
    queue.add(ns);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void drain());
  };
  const drain = async (): Promise<void> => {
    scheduled = false;
    for (const ns of [...queue]) {
      queue.delete(ns);
      const n = namespaces.getByName('', ns);
      if (!n || n.status?.phase === 'Terminating' || n.metadata?.deletionTimestamp) continue;
      if (sas.getByName(ns, 'default')) continue;
      try {
        await client.create(R.serviceaccounts, ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } });
      } catch (e) {
        if (!isAlreadyExists(e) && !isNotFound(e)) setTimeout(() => enqueue(ns), 1000).unref();
      }
    }
  };
  namespaces.addEventHandler({ add: (n) => enqueue(n.metadata!.name!), update: (_o, n) => enqueue(n.metadata!.name!) });
  sas.addEventHandler({ delete: (sa) => enqueue(sa.metadata!.namespace!) });
  sas.start();
  await sas.waitForSync();
  namespaces.start();
  await namespaces.waitForSync();
  return {
    async stop() {
      namespaces.stop();
      sas.stop();
    },
  };
}
