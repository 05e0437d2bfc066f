/**
 * The ClusterRole metrics-server's manifest ships with the metrics API:
 * `system:aggregated-metrics-reader` (get, list, watch on metrics.k8s.io pods and nodes),
 * labelled to be aggregated into the admin, edit and view roles, so every user who may
 * view a namespace may also `kubectl top` it. k3s installs the same role with its
 * packaged metrics-server; k8ts creates it with the built-in one, and leaves an existing
 * role of that name alone (a real metrics-server's manifest may own it).
 *
 * @see https://github.com/kubernetes-sigs/metrics-server/blob/v0.7.2/manifests/base/rbac.yaml
 */
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import { isAlreadyExists } from '../../apimachinery/errors.js';
import type { Client } from '../../client/types.js';
import type { KObject } from '../../api/resource.js';

const CLUSTER_ROLES = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false };

/** The role as metrics-server's manifest defines it. */
export function aggregatedMetricsReaderRole(): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: 'system:aggregated-metrics-reader',
      labels: {
        'k8s-app': 'metrics-server',
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
        'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
        'rbac.authorization.k8s.io/aggregate-to-view': 'true',
      },
    },
    rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
  };
}

/**
 * Creates the role unless it exists.
 * @throws whatever the create fails with, except AlreadyExists
 */
export async function ensureAggregatedMetricsReader(client: Client): Promise<void> {
  try {
    await client.create(CLUSTER_ROLES, '', aggregatedMetricsReaderRole() as ClusterRole & KObject);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}
