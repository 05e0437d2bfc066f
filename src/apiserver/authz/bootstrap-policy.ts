/**
 * Upstream's bootstrap RBAC policy (kube-apiserver's rbac/bootstrap-roles post-start
 * hook): the user-facing roles cluster-admin, admin, edit, view (aggregated from the
 * system:aggregate-to-* roles), the discovery roles, the component roles
 * (system:kube-scheduler, system:kube-controller-manager, system:node …), the
 * per-controller roles system:controller:*, and their bindings.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { CONTROLLER_ROLES, eventsRule, rule } from './controller-policy.js';

export { rule };

const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const RW = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const AGG = 'rbac.authorization.k8s.io/aggregate-to-';

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...labels }, annotations: { ...AUTOUPDATE } },
    rules,
  };
}

function aggregated(name: string, labels: Record<string, string>): ClusterRole {
  const r = clusterRole(name, [], labels);
  r.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [`${AGG}${name}`]: 'true' } }] };
  return r;
}

export const user = (name: string): Subject => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
export const group = (name: string): Subject => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });
export const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterBinding(name: string, role: string, subjects: Subject[]): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  };
}

/** Rules of system:node, which the Node authorizer applies to kubelets (upstream NodeRules). */
export function nodeRules(): PolicyRule[] {
  return [
    rule(['create'], 'authentication.k8s.io', ['tokenreviews']),
    rule(['create'], 'authorization.k8s.io', ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(RW, '', ['services']),
    rule(['create', 'get', 'list', 'watch'], '', ['nodes']),
    rule(['update', 'patch'], '', ['nodes/status']),
    rule(['update', 'patch', 'delete'], '', ['nodes']),
    rule(['create', 'update', 'patch'], '', ['events']),
    rule(['create', 'update', 'patch'], 'events.k8s.io', ['events']),
    rule(RW, '', ['pods']),
    rule(['create', 'delete'], '', ['pods']),
    rule(['update', 'patch'], '', ['pods/status']),
    rule(['create'], '', ['pods/eviction']),
    rule(RW, '', ['secrets', 'configmaps']),
    rule(['get'], '', ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], '', ['endpoints']),
    rule(['get', 'update', 'patch'], '', ['persistentvolumeclaims/status']),
    rule(['get'], 'storage.k8s.io', ['volumeattachments']),
    rule(['create'], '', ['serviceaccounts/token']),
    rule(RW, 'storage.k8s.io', ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], 'storage.k8s.io', ['csinodes']),
    rule(['get', 'create', 'update', 'patch', 'delete'], 'coordination.k8s.io', ['leases']),
    rule(RW, 'node.k8s.io', ['runtimeclasses']),
    rule(['create', 'get', 'list', 'watch'], 'certificates.k8s.io', ['certificatesigningrequests']),
  ];
}

function viewRules(): PolicyRule[] {
  return [
    rule(RW, '', [
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'configmaps',
    ]),
    rule(RW, '', ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
    rule(RW, '', ['namespaces']),
    rule(RW, 'discovery.k8s.io', ['endpointslices']),
    rule(RW, 'apps', [
      'controllerrevisions',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
    ]),
    rule(RW, 'autoscaling', ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(RW, 'batch', ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
    rule(RW, 'extensions', [
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'ingresses',
      'ingresses/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'replicationcontrollers/scale',
      'networkpolicies',
    ]),
    rule(RW, 'policy', ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(RW, 'networking.k8s.io', ['ingresses', 'ingresses/status', 'networkpolicies']),
  ];
}

function editRules(): PolicyRule[] {
  return [
    rule(RW, '', ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
    rule(['impersonate'], '', ['serviceaccounts']),
    rule(WRITE, '', ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
    rule(['create'], '', ['pods/eviction']),
    rule(WRITE, '', [
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/proxy',
      'persistentvolumeclaims',
      'configmaps',
      'secrets',
      'events',
    ]),
    rule(['create'], '', ['serviceaccounts/token']),
    rule(WRITE, 'apps', ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
    rule(WRITE, 'autoscaling', ['horizontalpodautoscalers']),
    rule(WRITE, 'batch', ['jobs', 'cronjobs']),
    rule(WRITE, 'extensions', [
      'daemonsets',
      'deployments',
      'deployments/scale',
      'deployments/rollback',
      'ingresses',
      'replicasets',
      'replicasets/scale',
      'replicationcontrollers/scale',
      'networkpolicies',
    ]),
    rule(WRITE, 'policy', ['poddisruptionbudgets']),
    rule(WRITE, 'networking.k8s.io', ['ingresses', 'networkpolicies']),
    rule(WRITE, 'coordination.k8s.io', ['leases']),
  ];
}

function adminRules(): PolicyRule[] {
  return [
    rule(['create'], 'authorization.k8s.io', ['localsubjectaccessreviews']),
    rule([...WRITE, 'get', 'list', 'watch'].sort(), 'rbac.authorization.k8s.io', ['rolebindings', 'roles']),
  ];
}

const url = (verbs: string[], urls: string[]): PolicyRule => ({ verbs, nonResourceURLs: urls });

/** Bootstrap ClusterRoles, aggregated roles already filled in. */
export function bootstrapClusterRoles(): ClusterRole[] {
  const roles: ClusterRole[] = [
    clusterRole('cluster-admin', [rule(['*'], '*', ['*']), url(['*'], ['*'])]),
    clusterRole('system:discovery', [url(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
    clusterRole('system:monitoring', [url(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])]),
    clusterRole('system:basic-user', [
      rule(['create'], 'authorization.k8s.io', ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], 'authentication.k8s.io', ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [url(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    aggregated('admin', {}),
    aggregated('edit', { [`${AGG}admin`]: 'true' }),
    aggregated('view', { [`${AGG}edit`]: 'true' }),
    clusterRole('system:aggregate-to-admin', adminRules(), { [`${AGG}admin`]: 'true' }),
    clusterRole('system:aggregate-to-edit', editRules(), { [`${AGG}edit`]: 'true' }),
    clusterRole('system:aggregate-to-view', viewRules(), { [`${AGG}view`]: 'true' }),
    clusterRole('system:heapster', [rule(RW, '', ['events', 'pods', 'nodes', 'namespaces']), rule(RW, 'extensions', ['deployments'])]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-problem-detector', [rule(['get'], '', ['nodes']), rule(['patch'], '', ['nodes/status']), eventsRule()]),
    clusterRole('system:kubelet-api-admin', [
      rule(['get', 'list', 'watch'], '', ['nodes']),
      rule(['proxy'], '', ['nodes']),
      rule(['*'], '', ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
    ]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], 'certificates.k8s.io', ['certificatesigningrequests'])]),
    clusterRole('system:auth-delegator', [rule(['create'], 'authentication.k8s.io', ['tokenreviews']), rule(['create'], 'authorization.k8s.io', ['subjectaccessreviews'])]),
    clusterRole('system:kube-aggregator', [rule(RW, 'apiregistration.k8s.io', ['apiservices'])]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      rule(['create'], 'coordination.k8s.io', ['leases']),
      rule(['get', 'update'], 'coordination.k8s.io', ['leases'], ['kube-controller-manager']),
      rule(['create'], '', ['endpoints']),
      rule(['get', 'update'], '', ['endpoints'], ['kube-controller-manager']),
      rule(['create'], '', ['secrets', 'serviceaccounts']),
      rule(['delete'], '', ['secrets']),
      rule(['get'], '', ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], '', ['secrets', 'serviceaccounts']),
      rule(['create'], 'authentication.k8s.io', ['tokenreviews']),
      rule(['create'], 'authorization.k8s.io', ['subjectaccessreviews']),
      rule(['list', 'watch'], '*', ['*']),
      rule(['create'], '', ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], '', ['endpoints', 'services']), rule(['list', 'watch'], 'discovery.k8s.io', ['endpointslices'])]),
    // what a node's network policy enforcement reads (k3s's system:k3s-controller role does the same for its agents)
    clusterRole('k8ts:node-network', [rule(['list', 'watch'], '', ['pods', 'namespaces']), rule(['list', 'watch'], 'networking.k8s.io', ['networkpolicies'])]),
    // a server joining with the node token reads the cluster's CAs and the etcd members (k3s' server token does the same)
    clusterRole('k8ts:server-join', [url(['get'], ['/v1-k8ts/server-bootstrap', '/db/info'])]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['create', 'delete', 'get', 'list', 'watch'], '', ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], '', ['persistentvolumeclaims']),
      rule(RW, 'storage.k8s.io', ['storageclasses']),
      rule(['watch'], '', ['events']),
      eventsRule(),
    ]),
    // k8ts runs the CSI sidecars (external-provisioner, -attacher, -resizer) of its node-local
    // drivers inside the node agent, so nodes get the rights upstream's sidecar RBAC gives them
    clusterRole('k8ts:csi-node-sidecars', [
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], '', ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update', 'patch'], '', ['persistentvolumeclaims']),
      rule(['update', 'patch'], '', ['persistentvolumeclaims/status']),
      rule(RW, 'storage.k8s.io', ['storageclasses', 'csinodes', 'csidrivers']),
      rule(['get', 'list', 'watch', 'update', 'patch'], 'storage.k8s.io', ['volumeattachments']),
      rule(['update', 'patch'], 'storage.k8s.io', ['volumeattachments/status']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], 'storage.k8s.io', ['csistoragecapacities']),
      rule(['get', 'list', 'watch'], '', ['nodes']),
      eventsRule(),
    ]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], '', ['services', 'endpoints']),
      rule(['get', 'list', 'watch'], '', ['nodes']),
      eventsRule(),
      rule(['list', 'watch'], 'discovery.k8s.io', ['endpointslices']),
    ]),
    clusterRole('system:kube-scheduler', [
      eventsRule(),
      rule(['create'], 'coordination.k8s.io', ['leases']),
      rule(['get', 'update'], 'coordination.k8s.io', ['leases'], ['kube-scheduler']),
      rule(['create'], '', ['endpoints']),
      rule(['get', 'update'], '', ['endpoints'], ['kube-scheduler']),
      rule(RW, '', ['nodes']),
      rule(['delete', 'get', 'list', 'watch'], '', ['pods']),
      rule(['create'], '', ['pods/binding', 'bindings']),
      rule(['patch', 'update'], '', ['pods/status']),
      rule(RW, '', ['replicationcontrollers', 'services']),
      rule(RW, 'apps', ['replicasets', 'statefulsets']),
      rule(RW, 'policy', ['poddisruptionbudgets']),
      rule(RW, '', ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], 'authentication.k8s.io', ['tokenreviews']),
      rule(['create'], 'authorization.k8s.io', ['subjectaccessreviews']),
      rule(RW, 'storage.k8s.io', ['csinodes']),
      rule(RW, '', ['namespaces']),
      rule(RW, 'storage.k8s.io', ['csidrivers', 'csistoragecapacities']),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'patch', 'update', 'watch'], '', ['persistentvolumes']),
      rule(RW, 'storage.k8s.io', ['storageclasses']),
      rule(['get', 'list', 'patch', 'update', 'watch'], '', ['persistentvolumeclaims']),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], 'certificates.k8s.io', ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], 'certificates.k8s.io', ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [rule(['approve'], 'certificates.k8s.io', ['signers'], ['kubernetes.io/kube-apiserver-client'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [
      rule(['approve'], 'certificates.k8s.io', ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    ]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [rule(['approve'], 'certificates.k8s.io', ['signers'], ['kubernetes.io/kubelet-serving'])]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [rule(['approve'], 'certificates.k8s.io', ['signers'], ['kubernetes.io/legacy-unknown'])]),
    clusterRole('system:service-account-issuer-discovery', [
      url(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/']),
    ]),
  ];
  for (const [name, rules] of Object.entries(CONTROLLER_ROLES)) roles.push(clusterRole(`system:controller:${name}`, rules));
  return fillAggregated(roles);
}

/** Computes the rules of aggregated roles from the roles their selectors match (the controller does this live). */
export function fillAggregated(roles: ClusterRole[]): ClusterRole[] {
  for (let pass = 0; pass < 3; pass++) {
    for (const r of roles) {
      const sels = r.aggregationRule?.clusterRoleSelectors;
      if (!sels) continue;
      const rules: PolicyRule[] = [];
      for (const other of roles) {
        if (other === r) continue;
        const labels = other.metadata?.labels ?? {};
        if (!sels.some((s) => Object.entries(s.matchLabels ?? {}).every(([k, v]) => labels[k] === v))) continue;
        for (const x of other.rules ?? []) if (!rules.some((y) => JSON.stringify(y) === JSON.stringify(x))) rules.push(x);
      }
      r.rules = rules;
    }
  }
  return roles;
}

/** Bootstrap ClusterRoleBindings (plus k8ts' equivalents of kubeadm's node bootstrap bindings). */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  const b: ClusterRoleBinding[] = [
    clusterBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
    clusterBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
    clusterBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterBinding('system:node-proxier', 'system:node-proxier', [user('system:kube-proxy')]),
    clusterBinding('system:kube-controller-manager', 'system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterBinding('system:kube-dns', 'system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    clusterBinding('system:kube-scheduler', 'system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:volume-scheduler', 'system:volume-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterBinding('system:node', 'system:node', []),
    // what kubeadm adds so that `k8ts agent` can join with a bootstrap token
    clusterBinding('k8ts:kubelet-bootstrap', 'system:node-bootstrapper', [group('system:bootstrappers')]),
    clusterBinding('k8ts:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', [group('system:bootstrappers')]),
    clusterBinding('k8ts:csi-node-sidecars', 'k8ts:csi-node-sidecars', [group('system:nodes')]),
    // the agent's service proxy (src/proxy) watches Services and EndpointSlices with the node's credentials, as k3s' embedded kube-proxy does with its own
    clusterBinding('k8ts:node-proxier', 'system:node-proxier', [group('system:nodes')]),
    clusterBinding('k8ts:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [group('system:nodes')]),
    // each node's agent answers cluster DNS and enforces NetworkPolicies (k3s agents do both with their own credentials)
    clusterBinding('k8ts:node-kube-dns', 'system:kube-dns', [group('system:nodes')]),
    clusterBinding('k8ts:node-network', 'k8ts:node-network', [group('system:nodes')]),
    clusterBinding('k8ts:server-join', 'k8ts:server-join', [group('system:bootstrappers:k8ts:default-node-token')]),
  ];
  for (const name of Object.keys(CONTROLLER_ROLES)) b.push(clusterBinding(`system:controller:${name}`, `system:controller:${name}`, [serviceAccount('kube-system', name)]));
  return b;
}

/** Namespaced bootstrap Roles (leader election locks, authentication config reader). */
export function bootstrapRoles(): Role[] {
  const role = (ns: string, name: string, rules: PolicyRule[]): Role => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name, namespace: ns, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    rules,
  });
  return [
    role('kube-system', 'extension-apiserver-authentication-reader', [rule(RW, '', ['configmaps'], ['extension-apiserver-authentication'])]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', [
      rule(['watch'], '', ['configmaps']),
      rule(['get', 'update'], '', ['configmaps'], ['kube-controller-manager']),
    ]),
    role('kube-system', 'system::leader-locking-kube-scheduler', [rule(['watch'], '', ['configmaps']), rule(['get', 'update'], '', ['configmaps'], ['kube-scheduler'])]),
  ];
}

export function bootstrapRoleBindings(): RoleBinding[] {
  const bind = (ns: string, name: string, role: string, subjects: Subject[]): RoleBinding => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace: ns, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
    subjects,
  });
  return [
    bind('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [
      user('system:kube-controller-manager'),
      user('system:kube-scheduler'),
    ]),
    bind('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
      user('system:kube-controller-manager'),
      serviceAccount('kube-system', 'kube-controller-manager'),
    ]),
    bind('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [
      user('system:kube-scheduler'),
      serviceAccount('kube-system', 'kube-scheduler'),
    ]),
  ];
}
