/**
 * Pod statuses for pods on kwok-style simulated nodes, built by the kubelet's own status
 * generator (src/kubelet/status/pod-status.ts) from a synthetic runtime state — so a pod
 * on a pool node reads exactly as one on a kubelet node (conditions with upstream's
 * reasons, container statuses sorted as upstream, qosClass, startTime), while nothing
 * runs: container IDs are `kwok://…` and image IDs `kwok://<image>` (SIMULATED).
 *
 * @see https://github.com/kubernetes-sigs/kwok/blob/main/kustomize/stage/pod/general (pod-ready, pod-complete)
 */
import type { Container, Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { isRestartableInitContainer } from '../api/core/v1/helpers/containers.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from '../kubelet/container/runtime.js';
import { ReasonCache } from '../kubelet/kuberuntime/reason-cache.js';
import { generateAPIPodStatus } from '../kubelet/status/pod-status.js';

const noReasons = new ReasonCache();
const noProbes = { result: () => undefined };

function container(pod: Pod, c: Container, state: 'running' | 'exited', startedAt: number, finishedAt: number): RuntimeContainerStatus {
  const id = `${pod.metadata?.uid ?? ''}-${c.name}`.replace(/[^a-z0-9-]/g, '');
  return {
    id,
    containerID: `kwok://${id}`,
    name: c.name,
    sandboxId: pod.metadata?.uid ?? '',
    state,
    createdAt: startedAt,
    startedAt,
    finishedAt: state === 'exited' ? finishedAt : 0,
    exitCode: 0,
    reason: state === 'exited' ? 'Completed' : '',
    message: '',
    image: c.image ?? '',
    imageRef: `kwok://${c.image ?? ''}`,
    restartCount: 0,
    hash: '',
  };
}

/**
 * The status a kubelet would post for `pod` with every init container completed and
 * every container running (`complete` false), or every container exited 0 (`complete`
 * true: phase Succeeded).
 * @param hostIP the node's InternalIP
 * @param podIP the pod's IP ('' for hostNetwork pods, which get the node's)
 * @param nowMs wall clock, ms since the epoch
 */
export function simulatedPodStatus(pod: Pod, hostIP: string, podIP: string, nowMs: number, complete: boolean): PodStatus {
  const uid = pod.metadata?.uid ?? '';
  const start = pod.status?.startTime ? Date.parse(pod.status.startTime) : nowMs;
  const containers: RuntimeContainerStatus[] = [];
  for (const c of pod.spec?.initContainers ?? []) {
    containers.push(container(pod, c, isRestartableInitContainer(c) && !complete ? 'running' : 'exited', start, nowMs));
  }
  for (const c of pod.spec?.containers ?? []) containers.push(container(pod, c, complete ? 'exited' : 'running', start, nowMs));
  const ps: RuntimePodStatus = {
    uid,
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
    sandboxes: [{ id: uid, ready: !complete, attempt: 0, createdAt: start, ips: podIP ? [podIP] : [] }],
    containers,
    ips: podIP ? [podIP] : [],
  };
  return generateAPIPodStatus(pod, ps, { reasons: noReasons, probes: noProbes, hostIPs: [hostIP], now: new Date(nowMs) }, complete);
}
