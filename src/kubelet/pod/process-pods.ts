/**
 * Process pods: static pods whose "container" is a component running inside this
 * process (the all-in-one server's API server, scheduler and controller manager), so
 * the API shows them as kube-system pods the way a kubeadm cluster shows its
 * control plane (`kube-scheduler-<node>` …), as mirror pods of the local node.
 *
 * The kubelet never hands them to the runtime. Their status comes from the
 * component's health check (every 10 s, the kubelet's probe period); their one
 * container's log is the component's own klog output, which the component writes in
 * the CRI log format where the kubelet serves container logs from
 * (`<kubeletDir>/logs/<ns>_<name>_<uid>/<container>/0.log`), so `kubectl logs`
 * reads it. They are marked so nobody takes them for containers: the annotation
 * `k8ts.io/process` names the process, `kubernetes.io/config.source` is `process`,
 * and the container ID's scheme is `process://<pid>`.
 */
import { join } from 'node:path';
import type { Container, Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { setPodDefaults } from '../../api/core/v1/pod/defaults.js';
import type { Pod as APIPod } from '../../api/core/v1/pod/types.js';
import { applyStaticPodDefaults } from '../config/static-pod.js';

/** Names the process a process pod stands for (`<component> in <program> (not a container)`; the pid is in the container ID). */
export const PROCESS_ANNOTATION = 'k8ts.io/process';
/** The config source of process pods in `kubernetes.io/config.source`. */
export const PROCESS_SOURCE = 'process';

/** An in-process component shown as a pod. */
export interface ProcessComponent {
  /** the pod's base name and its container's name, e.g. `kube-scheduler` */
  name: string;
  /** the command line the component would have as a binary (shown in the pod spec) */
  command: string[];
  /** the image kubeadm runs the component from (shown, never pulled) */
  image: string;
  /** CPU request, as kubeadm's manifests set it (e.g. `100m`) */
  cpuRequest?: string;
  /** the component's health check (its /healthz): true when healthy */
  healthy: () => boolean | Promise<boolean>;
  /** when the component started, ms since the epoch */
  startedAt: number;
  /** the PID of the process it runs in (a supervised child such as etcd); default this process's */
  pid?: () => number | undefined;
}

/** A process pod handed to the kubelet: the static pod and how to check it. */
export interface ProcessPod {
  pod: Pod;
  component: ProcessComponent;
}

/**
 * The static pod of `c` on node `nodeName`: kube-system, `component` and `tier:
 * control-plane` labels, host network, priority class system-node-critical, as
 * kubeadm's manifests.
 */
export function processPod(c: ProcessComponent, nodeName: string, program = 'k8ts server'): ProcessPod {
  const container: Container = { name: c.name, image: c.image, command: c.command, imagePullPolicy: 'IfNotPresent' };
  if (c.cpuRequest) container.resources = { requests: { cpu: c.cpuRequest } };
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: c.name,
      namespace: 'kube-system',
      labels: { component: c.name, tier: 'control-plane' },
      annotations: { [PROCESS_ANNOTATION]: `${c.name} in ${program} (not a container)` },
    },
    spec: { hostNetwork: true, priorityClassName: 'system-node-critical', containers: [container] },
  };
  setPodDefaults(pod as APIPod);
  applyStaticPodDefaults(pod, c.name, nodeName, PROCESS_SOURCE);
  return { pod, component: c };
}

/** Where the component of process pod `pod` writes its log (the kubelet's container log layout). */
export function processPodLogPath(kubeletDir: string, pod: Pod): string {
  const m = pod.metadata ?? {};
  return join(kubeletDir, 'logs', `${m.namespace}_${m.name}_${m.uid}`, pod.spec!.containers[0]!.name, '0.log');
}

const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** The status of process pod `pod`: Running since the component started, ready while healthy. */
export function processPodStatus(pod: Pod, c: ProcessComponent, healthy: boolean, hostIP: string, prev?: PodStatus): PodStatus {
  const started = rfc3339(c.startedAt);
  const ready = healthy ? 'True' : 'False';
  // a condition keeps its transition time while its status stays
  const since = (type: string, status: string): string => {
    const old = prev?.conditions?.find((x) => x.type === type);
    return old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(Date.now());
  };
  const cond = (type: string, status: string) => ({
    type,
    status,
    lastProbeTime: null as unknown as string,
    lastTransitionTime: type === 'Ready' || type === 'ContainersReady' ? since(type, status) : started,
  });
  const ctr = pod.spec!.containers[0]!;
  return {
    phase: 'Running',
    conditions: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), cond('Ready', ready), cond('ContainersReady', ready), cond('PodScheduled', 'True')],
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP: hostIP,
    podIPs: [{ ip: hostIP }],
    startTime: started,
    containerStatuses: [
      {
        name: ctr.name,
        state: { running: { startedAt: started } },
        ready: healthy,
        restartCount: 0,
        image: ctr.image ?? '',
        imageID: '',
        containerID: `process://${c.pid ? (c.pid() ?? 0) : process.pid}`,
        started: true,
      },
    ],
    qosClass: ctr.resources?.requests ? 'Burstable' : 'BestEffort',
  };
}
