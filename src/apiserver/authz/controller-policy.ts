/**
 * Roles of the individual controllers (upstream controller_policy.go): each controller
 * runs as ServiceAccount kube-system/<name> bound to ClusterRole system:controller:<name>.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

/** A resource rule: verbs on resources of one API group, optionally limited to names. */
export function rule(verbs: string[], group: string, resources: string[], names?: string[]): PolicyRule {
  const r: PolicyRule = { verbs: [...verbs], apiGroups: [group], resources: [...resources] };
  if (names) r.resourceNames = [...names];
  return r;
}

/** create/update/patch on events (core and events.k8s.io). */
export function eventsRule(): PolicyRule {
  return { verbs: ['create', 'patch', 'update'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] };
}

const RW = ['get', 'list', 'watch'];
const LW = ['list', 'watch'];

/** The identity a controller of the controller manager uses (`--use-service-account-credentials`). */
export function controllerUser(name: string): { username: string; groups: string[] } {
  return {
    username: `system:serviceaccount:kube-system:${name}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
  };
}

/** controller name → rules */
export const CONTROLLER_ROLES: Record<string, PolicyRule[]> = {
  'attachdetach-controller': [
    rule(['list', 'watch'], '', ['persistentvolumes', 'persistentvolumeclaims']),
    rule(['get', 'list', 'watch'], '', ['nodes']),
    rule(['patch', 'update'], '', ['nodes/status']),
    rule(['list', 'watch'], '', ['pods']),
    eventsRule(),
    rule(['get', 'create', 'delete', 'list', 'watch'], 'storage.k8s.io', ['volumeattachments']),
    rule(['get', 'list', 'watch'], 'storage.k8s.io', ['csidrivers']),
    rule(['get', 'list', 'watch'], 'storage.k8s.io', ['csinodes']),
  ],
  'clusterrole-aggregation-controller': [rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], 'rbac.authorization.k8s.io', ['clusterroles'])],
  'cronjob-controller': [
    rule(['get', 'list', 'watch', 'update'], 'batch', ['cronjobs']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], 'batch', ['jobs']),
    rule(['update'], 'batch', ['cronjobs/status']),
    rule(['update'], 'batch', ['cronjobs/finalizers']),
    rule(['list', 'delete'], '', ['pods']),
    eventsRule(),
  ],
  'daemon-set-controller': [
    rule(['get', 'list', 'watch'], 'apps', ['daemonsets']),
    rule(['update'], 'apps', ['daemonsets/status']),
    rule(['update'], 'apps', ['daemonsets/finalizers']),
    rule(LW, '', ['nodes']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], '', ['pods']),
    rule(['create'], '', ['pods/binding']),
    rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], 'apps', ['controllerrevisions']),
    eventsRule(),
  ],
  'deployment-controller': [
    rule(['get', 'list', 'watch', 'update'], 'apps', ['deployments']),
    rule(['update'], 'apps', ['deployments/status']),
    rule(['update'], 'apps', ['deployments/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], 'apps', ['replicasets']),
    rule(['get', 'list', 'watch', 'update'], '', ['pods']),
    eventsRule(),
  ],
  'disruption-controller': [
    rule(RW, 'apps', ['deployments', 'replicasets', 'statefulsets']),
    rule(RW, '', ['replicationcontrollers']),
    rule(RW, 'policy', ['poddisruptionbudgets']),
    rule(['update'], 'policy', ['poddisruptionbudgets/status']),
    rule(['get'], '*', ['*/scale']),
    rule(['patch', 'update'], '', ['pods/status']),
    eventsRule(),
  ],
  'endpoint-controller': [
    rule(RW, '', ['services', 'pods']),
    rule(['get', 'list', 'create', 'update', 'delete'], '', ['endpoints']),
    rule(['create'], '', ['endpoints/restricted']),
    eventsRule(),
  ],
  'service-lb-controller': [rule(['get', 'list', 'watch'], '', ['services', 'nodes']), rule(['update', 'patch'], '', ['services/status']), eventsRule()],
  'endpointslice-controller': [
    rule(RW, '', ['services', 'pods', 'nodes']),
    rule(['create', 'update', 'delete'], '', ['services/finalizers']),
    rule(['get', 'list', 'create', 'update', 'delete'], 'discovery.k8s.io', ['endpointslices']),
    eventsRule(),
  ],
  'endpointslicemirroring-controller': [
    rule(RW, '', ['services', 'endpoints']),
    rule(['create', 'update', 'delete'], '', ['services/finalizers']),
    rule(['create', 'update', 'delete'], '', ['endpoints/finalizers']),
    rule(['get', 'list', 'create', 'update', 'delete'], 'discovery.k8s.io', ['endpointslices']),
    eventsRule(),
  ],
  'ephemeral-volume-controller': [
    rule(['get', 'list', 'watch'], '', ['pods']),
    rule(['update'], '', ['pods/finalizers']),
    rule(['get', 'list', 'watch', 'create'], '', ['persistentvolumeclaims']),
    eventsRule(),
  ],
  'expand-controller': [
    rule(['get', 'list', 'watch', 'update', 'patch'], '', ['persistentvolumes']),
    rule(['update', 'patch'], '', ['persistentvolumeclaims/status']),
    rule(['get', 'list', 'watch'], '', ['persistentvolumeclaims']),
    rule(['get', 'list', 'watch'], 'storage.k8s.io', ['storageclasses']),
    rule(['get'], '', ['services', 'endpoints']),
    rule(['get'], '', ['secrets']),
    eventsRule(),
  ],
  'generic-garbage-collector': [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], '*', ['*'])],
  'horizontal-pod-autoscaler': [
    rule(RW, 'autoscaling', ['horizontalpodautoscalers']),
    rule(['update'], 'autoscaling', ['horizontalpodautoscalers/status']),
    rule(['get', 'update'], '*', ['*/scale']),
    rule(['list'], '', ['pods']),
    rule(['list'], 'metrics.k8s.io', ['pods']),
    rule(['get', 'list'], 'custom.metrics.k8s.io', ['*']),
    rule(['get', 'list'], 'external.metrics.k8s.io', ['*']),
    eventsRule(),
  ],
  'job-controller': [
    rule(['get', 'list', 'watch', 'update', 'patch'], 'batch', ['jobs']),
    rule(['update'], 'batch', ['jobs/status']),
    rule(['update'], 'batch', ['jobs/finalizers']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], '', ['pods']),
    eventsRule(),
  ],
  'namespace-controller': [
    rule(['get', 'list', 'watch', 'delete'], '', ['namespaces']),
    rule(['update'], '', ['namespaces/finalize', 'namespaces/status']),
    rule(['get', 'list', 'delete', 'deletecollection'], '*', ['*']),
  ],
  'node-controller': [
    rule(['get', 'list', 'update', 'delete', 'patch'], '', ['nodes']),
    rule(['patch', 'update'], '', ['nodes/status']),
    rule(['patch', 'update'], '', ['pods/status']),
    rule(['list', 'delete'], '', ['pods']),
    eventsRule(),
  ],
  'persistent-volume-binder': [
    rule(['get', 'list', 'watch', 'update', 'create', 'delete'], '', ['persistentvolumes']),
    rule(['update'], '', ['persistentvolumes/status']),
    rule(['get', 'list', 'watch', 'update'], '', ['persistentvolumeclaims']),
    rule(['update'], '', ['persistentvolumeclaims/status']),
    rule(['list', 'watch', 'get', 'create', 'delete'], '', ['pods']),
    rule(['get', 'create', 'delete'], '', ['services', 'endpoints']),
    rule(['get'], '', ['secrets']),
    rule(['get'], '', ['nodes']),
    rule(RW, 'storage.k8s.io', ['storageclasses']),
    eventsRule(),
  ],
  'pod-garbage-collector': [rule(['list', 'watch', 'delete'], '', ['pods']), rule(['get', 'list'], '', ['nodes']), rule(['patch'], '', ['pods/status'])],
  'replicaset-controller': [
    rule(['get', 'list', 'watch', 'update'], 'apps', ['replicasets']),
    rule(['update'], 'apps', ['replicasets/status']),
    rule(['update'], 'apps', ['replicasets/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], '', ['pods']),
    eventsRule(),
  ],
  'replication-controller': [
    rule(['get', 'list', 'watch', 'update'], '', ['replicationcontrollers']),
    rule(['update'], '', ['replicationcontrollers/status']),
    rule(['update'], '', ['replicationcontrollers/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], '', ['pods']),
    eventsRule(),
  ],
  'resourcequota-controller': [rule(LW, '*', ['*']), rule(['update'], '', ['resourcequotas/status']), eventsRule()],
  'route-controller': [rule(['list', 'watch'], '', ['nodes']), rule(['patch'], '', ['nodes/status']), eventsRule()],
  'service-account-controller': [rule(['create'], '', ['serviceaccounts']), eventsRule()],
  'service-controller': [rule(RW, '', ['services']), rule(['patch', 'update'], '', ['services/status']), rule(['list', 'watch'], '', ['nodes']), eventsRule()],
  'statefulset-controller': [
    rule(['list', 'watch'], '', ['pods']),
    rule(['get', 'list', 'watch'], 'apps', ['statefulsets']),
    rule(['update'], 'apps', ['statefulsets/status']),
    rule(['update'], 'apps', ['statefulsets/finalizers']),
    rule(['get', 'create', 'delete', 'update', 'patch'], '', ['pods']),
    rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], 'apps', ['controllerrevisions']),
    rule(['get', 'create'], '', ['persistentvolumeclaims']),
    rule(['update', 'delete'], '', ['persistentvolumeclaims']),
    eventsRule(),
  ],
  'ttl-controller': [rule(['update', 'patch', 'list', 'watch'], '', ['nodes']), eventsRule()],
  'certificate-controller': [
    rule(['get', 'list', 'watch', 'delete'], 'certificates.k8s.io', ['certificatesigningrequests']),
    rule(['update'], 'certificates.k8s.io', ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
    rule(['approve'], 'certificates.k8s.io', ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/legacy-unknown']),
    rule(
      ['sign'],
      'certificates.k8s.io',
      ['signers'],
      ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown'],
    ),
    rule(['create'], 'authorization.k8s.io', ['subjectaccessreviews']),
    eventsRule(),
  ],
  'pvc-protection-controller': [rule(['get', 'list', 'watch', 'update'], '', ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], '', ['pods']), eventsRule()],
  'pv-protection-controller': [rule(['get', 'list', 'watch', 'update'], '', ['persistentvolumes']), eventsRule()],
  'ttl-after-finished-controller': [rule(['get', 'list', 'watch', 'delete'], 'batch', ['jobs']), eventsRule()],
  'root-ca-cert-publisher': [rule(['create', 'update'], '', ['configmaps']), eventsRule()],
  'legacy-service-account-token-cleaner': [rule(['get'], '', ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']), rule(['patch', 'delete'], '', ['secrets'])],
  'node-ipam-controller': [rule(['list', 'watch', 'get', 'update', 'patch'], '', ['nodes']), rule(['patch', 'update'], '', ['nodes/status']), eventsRule()],
  'validatingadmissionpolicy-status-controller': [
    rule(RW, 'admissionregistration.k8s.io', ['validatingadmissionpolicies']),
    rule(['get', 'patch', 'update'], 'admissionregistration.k8s.io', ['validatingadmissionpolicies/status']),
  ],
};
