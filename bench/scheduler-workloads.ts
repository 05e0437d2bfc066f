/**
 * scheduler_perf workloads (test/integration/scheduler_perf/config/performance-config.yaml
 * of kubernetes v1.32) as data: node counts and labels, the pod templates, the init pods
 * (scheduled before measuring) and the measured pods, churn. Templates follow upstream's
 * pod-*.yaml files; nodes follow node-default.yaml (4 cpu, 32Gi, 110 pods, Ready) plus
 * the `kubernetes.io/hostname` label a kubelet would set.
 */
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';

export type PodTemplate = (name: string, ns: string) => Pod;

export interface PodOp {
  count: number;
  template: PodTemplate;
  namespace: string;
  /** do not wait for these pods to be scheduled (upstream skipWaitToCompletion) */
  skipWait?: boolean;
}

export interface Workload {
  name: string;
  nodes: number;
  /** labels of node i besides kubernetes.io/hostname */
  nodeLabels?: (i: number) => Record<string, string>;
  namespaces?: string[];
  init: PodOp[];
  measure: PodOp;
  /** upstream's churn op (mode recreate, 1 node + 1 large high-priority pod + 1 service per second) */
  churn?: boolean;
}

const resources = (cpu: string, mem = '500Mi', limits = true) => ({
  requests: { cpu, memory: mem },
  ...(limits ? { limits: { cpu, memory: mem } } : {}),
});

const pause = (cpu = '100m', limits = true) => [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80 }], resources: resources(cpu, '500Mi', limits) }];

/** pod-default.yaml */
export const podDefault: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { containers: pause() },
});

/** pod-with-topology-spreading.yaml */
export const podTopologySpreading: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: { color: 'blue' } },
  spec: {
    topologySpreadConstraints: [{ maxSkew: 5, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { color: 'blue' } } }],
    containers: pause(),
  },
});

/** pod-with-pod-anti-affinity.yaml */
export const podAntiAffinity: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: { color: 'green' } },
  spec: {
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { color: 'green' } }, topologyKey: 'kubernetes.io/hostname', namespaces: ['sched-0', 'sched-1'] },
        ],
      },
    },
    containers: pause(),
  },
});

/** pod-with-node-affinity.yaml */
export const podNodeAffinity: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone1', 'zone2'] }] }],
        },
      },
    },
    containers: pause(),
  },
});

/** pod-low-priority.yaml */
export const podLowPriority: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { terminationGracePeriodSeconds: 0, containers: pause('900m') },
});

/** pod-high-priority.yaml */
export const podHighPriority: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { priority: 10, containers: pause('3000m') },
});

/** pod-high-priority-large-cpu.yaml (requests only) */
export const podHighPriorityLargeCPU: PodTemplate = (name, ns) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { priority: 10, containers: pause('9', false) },
});

/** node-default.yaml with a name and the hostname label. */
export function nodeDefault(name: string, labels: Record<string, string> = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    spec: {},
    status: {
      capacity: { pods: '110', cpu: '4', memory: '32Gi' },
      allocatable: { pods: '110', cpu: '4', memory: '32Gi' },
      conditions: [{ status: 'True', type: 'Ready' }],
      phase: 'Running',
    },
  };
}

/** churn/service-default.yaml */
export function serviceDefault(name: string): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { selector: { app: 'test' }, ports: [{ port: 80, targetPort: 8080 }] },
  };
}

const zones = (values: string[]) => (i: number) => ({ 'topology.kubernetes.io/zone': values[i % values.length]! });

/** Every workload, by `<Name>/<variant>`; `quick` picks the small variants. */
export function workloads(quick: boolean): Workload[] {
  const big = !quick;
  return [
    {
      name: 'SchedulingBasic/500Nodes',
      nodes: 500,
      init: [{ count: 500, template: podDefault, namespace: 'default' }],
      measure: { count: 1000, template: podDefault, namespace: 'default' },
    },
    ...(big
      ? [
          {
            name: 'SchedulingBasic/5000Nodes_10000Pods',
            nodes: 5000,
            init: [{ count: 1000, template: podDefault, namespace: 'default' }],
            measure: { count: 10000, template: podDefault, namespace: 'default' },
          },
        ]
      : []),
    {
      name: big ? 'TopologySpreading/5000Nodes' : 'TopologySpreading/500Nodes',
      nodes: big ? 5000 : 500,
      nodeLabels: zones(['moon-1', 'moon-2', 'moon-3']),
      init: [{ count: big ? 5000 : 1000, template: podDefault, namespace: 'default' }],
      measure: { count: big ? 2000 : 1000, template: podTopologySpreading, namespace: 'default' },
    },
    {
      name: big ? 'SchedulingPodAntiAffinity/5000Nodes' : 'SchedulingPodAntiAffinity/500Nodes',
      nodes: big ? 5000 : 500,
      namespaces: ['sched-0', 'sched-1'],
      init: [{ count: big ? 1000 : 100, template: podAntiAffinity, namespace: 'sched-0' }],
      measure: { count: big ? 1000 : 400, template: podAntiAffinity, namespace: 'sched-1' },
    },
    {
      name: big ? 'SchedulingNodeAffinity/5000Nodes' : 'SchedulingNodeAffinity/500Nodes',
      nodes: big ? 5000 : 500,
      nodeLabels: zones(['zone1']),
      init: [{ count: big ? 5000 : 500, template: podNodeAffinity, namespace: 'default' }],
      measure: { count: 1000, template: podNodeAffinity, namespace: 'default' },
    },
    {
      name: 'PreemptionBasic/500Nodes',
      nodes: 500,
      init: [{ count: 2000, template: podLowPriority, namespace: 'default' }],
      measure: { count: 500, template: podHighPriority, namespace: 'default' },
    },
    {
      name: big ? 'SchedulingWithMixedChurn/5000Nodes' : 'SchedulingWithMixedChurn/1000Nodes',
      nodes: big ? 5000 : 1000,
      init: [],
      churn: true,
      measure: { count: big ? 2000 : 1000, template: podDefault, namespace: 'default' },
    },
  ];
}
