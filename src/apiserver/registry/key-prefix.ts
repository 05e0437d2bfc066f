/**
 * Where kube-apiserver keeps a resource in etcd, so that k8ts' keys (on SQLite and on
 * etcd) are the ones `etcdctl get --prefix /registry/...` shows on a real cluster:
 *
 * - built-in resources: `/registry/<resource>/`, the API group dropped
 *   (`/registry/deployments/`, `/registry/clusterroles/`), so one resource served in
 *   several groups or versions shares its objects (HorizontalPodAutoscalers in
 *   autoscaling/v1 and v2, Events in v1 and events.k8s.io);
 * - a few historical names: nodes are `minions`, services `services/specs`,
 *   endpoints `services/endpoints`, replicationcontrollers `controllers`, ingresses
 *   `ingress`;
 * - resources of the apiextensions and aggregator servers, and custom resources:
 *   `/registry/<group>/<resource>/` (`/registry/apiextensions.k8s.io/customresourcedefinitions/`,
 *   `/registry/stable.example.com/crontabs/`).
 *
 * Namespaced objects then live at `<prefix><namespace>/<name>`, cluster-scoped ones at
 * `<prefix><name>`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubeapiserver/default_storage_factory_builder.go (SpecialDefaultResourcePrefixes)
 * @see https://github.com/kubernetes/apiserver/blob/v0.32.0/pkg/server/storage/storage_factory.go (ResourcePrefix)
 */

/** API groups served by kube-apiserver itself (their resources' keys omit the group). */
const BUILT_IN_GROUPS = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiserverinternal.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** Upstream's historical key names, by `<group>/<resource>`. */
const SPECIAL: Record<string, string> = {
  '/replicationcontrollers': 'controllers',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/services': 'services/specs',
  'extensions/ingresses': 'ingress',
  'networking.k8s.io/ingresses': 'ingress',
};

/**
 * The storage key prefix (ending in `/`) of a resource, e.g. `('', 'pods')` →
 * `/registry/pods/`, `('', 'nodes')` → `/registry/minions/`, `('apps', 'deployments')`
 * → `/registry/deployments/`, `('stable.example.com', 'crontabs')` →
 * `/registry/stable.example.com/crontabs/`.
 */
export function storageKeyPrefix(group: string, resource: string): string {
  const special = SPECIAL[`${group}/${resource}`];
  if (special) return `/registry/${special}/`;
  if (BUILT_IN_GROUPS.has(group)) return `/registry/${resource}/`;
  return `/registry/${group}/${resource}/`;
}
