/**
 * API Priority and Fairness' bootstrap configuration: the mandatory (exempt, catch-all)
 * and suggested PriorityLevelConfigurations and FlowSchemas kube-apiserver creates at
 * start, each annotated `apf.kubernetes.io/autoupdate-spec: "true"`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go
 */
import type {
  FlowSchema,
  PolicyRulesWithSubjects,
  PriorityLevelConfiguration,
  PriorityLevelConfigurationSpec,
  ResourcePolicyRule,
  Subject,
} from 'kubernetes-types/flowcontrol/v1.js';

/** The annotation that lets the API server keep a bootstrap object's spec up to date. */
export const AUTOUPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';

const meta = (name: string) => ({ name, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } });

function plc(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta(name), spec };
}

function limited(shares: number, lendable: number, queuing?: [queues: number, handSize: number, queueLengthLimit: number]): PriorityLevelConfigurationSpec {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: shares,
      lendablePercent: lendable,
      limitResponse: queuing ? { type: 'Queue', queuing: { queues: queuing[0], handSize: queuing[1], queueLengthLimit: queuing[2] } } : { type: 'Reject' },
    },
  };
}

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemSAs = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: 'kube-system' } }));
const rule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): ResourcePolicyRule => ({
  verbs,
  apiGroups,
  resources,
  namespaces,
  ...(clusterScope ? { clusterScope } : {}),
});
/** everything: all verbs, groups, resources, namespaces and cluster scope, all non-resource URLs */
const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({
  subjects,
  resourceRules: [rule(['*'], ['*'], ['*'], ['*'], true)],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
});

function fs(name: string, pl: string, precedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', ...rules: PolicyRulesWithSubjects[]): FlowSchema {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: pl },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

/** exempt and catch-all, which the API server always restores. */
export const MANDATORY_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  plc('catch-all', limited(5, 0)),
  plc('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly PriorityLevelConfiguration[] = [
  plc('system', limited(30, 33, [64, 6, 50])),
  plc('node-high', limited(40, 25, [64, 6, 50])),
  plc('leader-election', limited(10, 0, [16, 4, 50])),
  plc('workload-high', limited(40, 50, [128, 6, 50])),
  plc('workload-low', limited(100, 90, [128, 6, 50])),
  plc('global-default', limited(20, 50, [128, 6, 50])),
];

export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  fs('exempt', 'exempt', 1, '', everything(groups('system:masters'))),
  fs('catch-all', 'catch-all', 10000, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

const leaderElectionRules = (ns: string): ResourcePolicyRule[] => [
  rule(['get', 'create', 'update'], [''], ['endpoints', 'configmaps'], [ns], false),
  rule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], ['*'], false),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  fs('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  fs('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups('system:nodes'),
    resourceRules: [rule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true), rule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false)],
  }),
  fs('probes', 'exempt', 2, '', {
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  fs('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users('system:kube-controller-manager', 'system:kube-scheduler'), ...kubeSystemSAs('*')],
    resourceRules: leaderElectionRules('kube-system'),
  }),
  fs('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users('system:kube-controller-manager'), ...kubeSystemSAs('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [rule(['get', 'create', 'update'], [''], ['endpoints'], ['*'], false)],
  }),
  fs('workload-leader-election', 'leader-election', 200, 'ByUser', { subjects: kubeSystemSAs('*'), resourceRules: leaderElectionRules('*') }),
  fs('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-controller-manager'))),
  fs('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users('system:kube-scheduler'))),
  fs('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemSAs('*'))),
  fs('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  fs('global-default', 'global-default', 9900, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];
