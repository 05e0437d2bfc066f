/**
 * Which runtime container a kubelet-server request means: the container whose log
 * to read (current, or the previous terminated one) from the pod's container
 * statuses, the running container to exec/attach into, the ready sandbox to
 * port-forward into. Errors carry upstream's texts (the kubelet answers them as
 * plain-text HTTP errors that the API server turns into metav1.Status).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_pods.go (validateContainerLogStatus, GetKubeletContainerLogs)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_getters.go (findContainer)
 */
import * as path from 'node:path';
import type { Container, ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { CRILabels, type Runtime } from '../../cri/api.js';

/** An error the kubelet server answers with `status` and `message` as plain text. */
export class KubeletHTTPError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KubeletHTTPError';
  }
}

/** The container spec named `name` among containers, init and ephemeral containers. */
export function containerSpec(pod: Pod, name: string): Container | undefined {
  const s = pod.spec;
  return (
    s?.containers?.find((c) => c.name === name) ??
    s?.initContainers?.find((c) => c.name === name) ??
    (s?.ephemeralContainers?.find((c) => c.name === name) as Container | undefined)
  );
}

function statusOf(pod: Pod, name: string): ContainerStatus | undefined {
  const st = pod.status;
  return (
    st?.containerStatuses?.find((c) => c.name === name) ?? st?.initContainerStatuses?.find((c) => c.name === name) ?? st?.ephemeralContainerStatuses?.find((c) => c.name === name)
  );
}

/** `containerd://abc` → `abc` */
function stripContainerIDScheme(id: string): string {
  const i = id.indexOf('://');
  return i < 0 ? id : id.slice(i + 3);
}

/** The container whose log a request means, with the restart count its log file is named after. */
interface LogTarget {
  /** runtime container ID (scheme stripped) */
  containerId: string;
  /** `<restart>.log` under the pod's log directory */
  restartCount: number;
}

/**
 * Upstream validateContainerLogStatus: the previous terminated container, the running
 * one, the terminated one, or an error saying why there is no log yet.
 * @throws KubeletHTTPError 400 with upstream's message
 */
export function logTarget(pod: Pod, containerName: string, previous: boolean): LogTarget {
  const podName = pod.metadata?.name ?? '';
  const q = (s: string) => JSON.stringify(s);
  const bad = (msg: string) => new KubeletHTTPError(400, msg);
  const cs = statusOf(pod, containerName);
  if (!cs) throw bad(`container ${q(containerName)} in pod ${q(podName)} is not available`);
  const last = cs.lastState?.terminated;
  const { waiting, running, terminated } = cs.state ?? {};
  const restarts = cs.restartCount ?? 0;
  if (previous) {
    if (!last?.containerID) throw bad(`previous terminated container ${q(containerName)} in pod ${q(podName)} not found`);
    return { containerId: stripContainerIDScheme(last.containerID), restartCount: Math.max(0, restarts - 1) };
  }
  if (running) {
    if (!cs.containerID) throw bad(`container ${q(containerName)} in pod ${q(podName)} is waiting to start - no logs yet`);
    return { containerId: stripContainerIDScheme(cs.containerID), restartCount: restarts };
  }
  if (terminated) {
    if (terminated.containerID) return { containerId: stripContainerIDScheme(terminated.containerID), restartCount: restarts };
    if (last?.containerID) return { containerId: stripContainerIDScheme(last.containerID), restartCount: Math.max(0, restarts - 1) };
    throw bad(`container ${q(containerName)} in pod ${q(podName)} is terminated`);
  }
  if (last) {
    if (!last.containerID) throw bad(`container ${q(containerName)} in pod ${q(podName)} is terminated`);
    return { containerId: stripContainerIDScheme(last.containerID), restartCount: Math.max(0, restarts - 1) };
  }
  if (waiting) {
    switch (waiting.reason) {
      case 'ErrImagePull':
        throw bad(`container ${q(containerName)} in pod ${q(podName)} is waiting to start: image can't be pulled`);
      case 'ImagePullBackOff':
        throw bad(`container ${q(containerName)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`);
      default:
        throw bad(`container ${q(containerName)} in pod ${q(podName)} is waiting to start: ${waiting.reason ?? ''}`);
    }
  }
  throw bad(`container ${q(containerName)} in pod ${q(podName)} is waiting to start - no logs yet`);
}

/**
 * The log file of `target`: the runtime's log path for the container, else the
 * kubelet's layout `<logRoot>/<ns>_<name>_<uid>/<container>/<restart>.log` (the
 * runtime may have removed the container; its log file stays).
 */
export async function logPathOf(runtime: Runtime, pod: Pod, containerName: string, target: LogTarget, logRoot?: string): Promise<string> {
  try {
    const st = await runtime.containerStatus(target.containerId);
    if (st.logPath) return st.logPath;
  } catch (e) {
    if (!logRoot) throw new KubeletHTTPError(400, `failed to get container status ${JSON.stringify(target.containerId)}: ${(e as Error).message}`);
  }
  if (!logRoot) throw new KubeletHTTPError(400, `container ${JSON.stringify(containerName)} has no log path`);
  const m = pod.metadata ?? {};
  return path.join(logRoot, `${m.namespace}_${m.name}_${m.uid}`, containerName, `${target.restartCount}.log`);
}

/** True while the runtime reports the container running. */
export async function isContainerRunning(runtime: Runtime, containerId: string): Promise<boolean> {
  try {
    return (await runtime.containerStatus(containerId)).state === 'CONTAINER_RUNNING';
  } catch {
    return false;
  }
}

/**
 * The running container `name` of `pod` (newest first), as upstream findContainer.
 * @throws KubeletHTTPError 500 `container not found ("name")`
 */
export async function runningContainerId(runtime: Runtime, pod: Pod, name: string): Promise<string> {
  const uid = pod.metadata?.uid ?? '';
  const list = await runtime.listContainers({
    state: 'CONTAINER_RUNNING',
    labelSelector: { [CRILabels.podUID]: uid, [CRILabels.containerName]: name },
  });
  if (!list.length) throw new KubeletHTTPError(500, `container not found (${JSON.stringify(name)})`);
  list.sort((a, b) => b.createdAt - a.createdAt);
  return list[0]!.id;
}

/**
 * The ready sandbox of `pod` (newest first).
 * @throws KubeletHTTPError 500 `failed to find sandboxID for pod name_namespace(uid)`
 */
export async function readySandboxId(runtime: Runtime, pod: Pod): Promise<string> {
  const m = pod.metadata ?? {};
  const list = await runtime.listPodSandbox({ state: 'SANDBOX_READY', labelSelector: { [CRILabels.podUID]: m.uid ?? '' } });
  if (!list.length) throw new KubeletHTTPError(500, `failed to find sandboxID for pod ${m.name}_${m.namespace}(${m.uid})`);
  list.sort((a, b) => b.createdAt - a.createdAt);
  return list[0]!.id;
}
