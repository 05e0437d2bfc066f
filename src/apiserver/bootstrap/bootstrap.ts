/**
 * What kube-apiserver's post-start hooks create: the system namespaces (default,
 * kube-system, kube-public, kube-node-lease), the `default/kubernetes` Service with
 * its EndpointSlice and Endpoints pointing at the API server, and the built-in
 * PriorityClasses. Idempotent: existing objects are left alone (the endpoints are
 * reconciled to the current address).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controlplane/controller/kubernetesservice/controller.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/registry/scheduling/rest/storage_scheduling.go
 */
import type { KObject } from '../../api/resource.js';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.js';
import type { Client } from '../../client/types.js';
import { R } from '../../client/types.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export interface BootstrapOptions {
  /** the API server's address as pods reach it (IPv4) */
  advertiseAddress: string;
  securePort: number;
  /** ClusterIP of default/kubernetes (first address of the service CIDR) */
  kubernetesServiceIP: string;
  /**
   * Write the Endpoints and EndpointSlice of `default/kubernetes` pointing at this one
   * server (default true). `k8ts server` passes false: its lease endpoint reconciler
   * (src/apiserver/controlplane) lists every live API server instead.
   */
  endpoints?: boolean;
}

async function ensure(client: Client, r: (typeof R)[keyof typeof R], ns: string, obj: KObject): Promise<void> {
  try {
    await client.get(r, ns, obj.metadata!.name!);
    return;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    await client.create(r, ns, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

export async function bootstrapCluster(client: Client, o: BootstrapOptions): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(client, R.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  await ensure(client, R.priorityclasses, '', {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2000001000,
    description: 'Used for system critical pods that must not be moved from their current node.',
    preemptionPolicy: 'PreemptLowerPriority',
  });
  await ensure(client, R.priorityclasses, '', {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2000000000,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    preemptionPolicy: 'PreemptLowerPriority',
  });
  await ensure(client, R.services, 'default', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: o.kubernetesServiceIP,
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: o.securePort }],
      sessionAffinity: 'None',
    },
  });
  if (o.endpoints === false) return;
  const endpoints: KObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: o.advertiseAddress }], ports: [{ name: 'https', port: o.securePort, protocol: 'TCP' }] }],
  };
  const slice: KObject = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [o.advertiseAddress], conditions: { ready: true } }],
    ports: [{ name: 'https', port: o.securePort, protocol: 'TCP' }],
  };
  await reconcile(client, R.endpoints, endpoints);
  await reconcile(client, R.endpointslices, slice);
}

/** Creates or overwrites an object we own. */
async function reconcile(client: Client, r: (typeof R)[keyof typeof R], obj: KObject): Promise<void> {
  const ns = obj.metadata!.namespace!;
  try {
    const cur = await client.get(r, ns, obj.metadata!.name!);
    await client.update(r, ns, { ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata?.resourceVersion } });
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await ensure(client, r, ns, obj);
  }
}
