/** Pod and Service fixtures for the Endpoints and EndpointSlice controller tests. */
import { R } from '../../client/types.js';
import type { Pod } from '../util/pods.js';
import type { TestCluster } from '../util/test-cluster.js';
import type { Service } from './util.js';

export const T0 = '2025-01-01T00:00:00Z';

/** A Running pod of `default` (labels app=web, node-1, Ready unless `ready: false`). */
export function pod(
  name: string,
  ip: string,
  o: {
    ready?: boolean;
    labels?: Record<string, string>;
    deleting?: boolean;
    phase?: string;
    hostname?: string;
    subdomain?: string;
    node?: string;
    ports?: { name: string; containerPort: number }[];
  } = {},
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '1',
      labels: o.labels ?? { app: 'web' },
      ...(o.deleting ? { deletionTimestamp: T0 } : {}),
    },
    spec: {
      nodeName: o.node ?? 'node-1',
      ...(o.hostname ? { hostname: o.hostname } : {}),
      ...(o.subdomain ? { subdomain: o.subdomain } : {}),
      containers: [{ name: 'c', image: 'nginx', ports: (o.ports ?? []).map((p) => ({ ...p, protocol: 'TCP' })) }],
    },
    status: {
      phase: o.phase ?? 'Running',
      podIP: ip,
      podIPs: ip ? [{ ip }] : [],
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: T0 }],
    },
  };
}

/** A ClusterIP Service of `default` selecting app=web (port 80 unless `ports`). */
export function service(
  name: string,
  o: { ports?: { name?: string; port: number; targetPort?: number | string }[]; clusterIP?: string; publishNotReady?: boolean; labels?: Record<string, string> } = {},
): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', uid: `uid-svc-${name}`, resourceVersion: '1', creationTimestamp: T0, ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      selector: { app: 'web' },
      clusterIP: o.clusterIP ?? '10.96.0.10',
      ipFamilies: ['IPv4'],
      ports: (o.ports ?? [{ port: 80 }]).map((p) => ({ ...p, protocol: 'TCP', targetPort: p.targetPort ?? p.port })),
      ...(o.publishNotReady ? { publishNotReadyAddresses: true } : {}),
    },
  };
}

/** Binds the pod to `node` and reports it Running with `ip`, Ready or not. */
export async function runPod(c: TestCluster, name: string, ip: string, ready: boolean, labels: Record<string, string> = { app: 'web' }, node = 'node-1'): Promise<Pod> {
  await c.client.create(R.pods, 'default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
  });
  await c.client.createSubresource(R.pods, 'default', name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });
  return setReady(c, name, ready, ip);
}

/** Sets the pod's Ready condition (and IP). */
export async function setReady(c: TestCluster, name: string, ready: boolean, ip?: string): Promise<Pod> {
  const cur = await c.client.get<Pod>(R.pods, 'default', name);
  const podIP = ip ?? cur.status?.podIP ?? '';
  (cur as { status?: unknown }).status = {
    ...cur.status,
    phase: 'Running',
    podIP,
    podIPs: [{ ip: podIP }],
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: T0 }],
  };
  return c.client.update<Pod>(R.pods, 'default', cur, { subresource: 'status' });
}
