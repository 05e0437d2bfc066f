/**
 * Reads a pod's sandboxes and containers from the runtime by the pod-UID label
 * (upstream GetPodStatus). This is also how the kubelet adopts what a previous
 * kubelet left running: state lives in the runtime, not in the kubelet.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_manager.go (GetPodStatus)
 */
import type { LifecycleHandler } from 'kubernetes-types/core/v1.js';
import { CRILabels, type ContainerStatus, type Runtime } from '../../cri/api.js';
import type { RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '../container/runtime.js';
import { isNotFound } from './errors.js';
import { Annotations } from './labels.js';
import { readTerminationMessage, tailOfCRILog } from './termination-message.js';

const ms = (ns: number): number => (ns ? Math.floor(ns / 1e6) : 0);

function toState(s: ContainerStatus['state']): RuntimeContainerStatus['state'] {
  switch (s) {
    case 'CONTAINER_CREATED':
      return 'created';
    case 'CONTAINER_RUNNING':
      return 'running';
    case 'CONTAINER_EXITED':
      return 'exited';
    default:
      return 'unknown';
  }
}

/** Converts one CRI container status (ns timestamps) into the kubelet's view (ms). */
export function toRuntimeContainerStatus(s: ContainerStatus, sandboxId: string, runtimeName: string): RuntimeContainerStatus {
  const tmp = s.annotations[Annotations.terminationMessagePath];
  const tmHost = tmp ? s.mounts.find((m) => m.containerPath === tmp)?.hostPath : undefined;
  const state = toState(s.state);
  let message = s.message;
  if (state === 'exited') {
    // upstream convertToKubeContainerStatus: the file's content, else (FallbackToLogsOnError,
    // failed, and the container did run) the tail of its log
    const fallback = s.annotations[Annotations.terminationMessagePolicy] === 'FallbackToLogsOnError' && s.exitCode !== 0 && s.reason !== 'ContainerCannotRun';
    let tm = tmHost ? readTerminationMessage(tmHost) : undefined;
    if ((tm === undefined || tm === '') && fallback) tm = tailOfCRILog(s.logPath);
    if (tm) message = tm;
  }
  let preStop: LifecycleHandler | undefined;
  try {
    const raw = s.annotations[Annotations.containerPreStopHandler];
    if (raw) preStop = JSON.parse(raw) as LifecycleHandler;
  } catch {
    preStop = undefined;
  }
  return {
    id: s.id,
    containerID: `${runtimeName}://${s.id}`,
    name: s.labels[CRILabels.containerName] ?? s.metadata.name,
    sandboxId,
    state,
    createdAt: ms(s.createdAt),
    startedAt: ms(s.startedAt),
    finishedAt: ms(s.finishedAt),
    exitCode: s.exitCode,
    reason: s.reason,
    message,
    image: s.image.userSpecifiedImage || s.image.image,
    imageRef: s.imageRef,
    restartCount: Number(s.annotations[Annotations.restartCount] ?? s.metadata.attempt) || 0,
    hash: s.annotations[Annotations.containerHash] ?? '',
    terminationMessageHostPath: tmHost,
    logPath: s.logPath,
    ...(preStop ? { preStop } : {}),
  };
}

/** Everything the runtime has for pod `uid`; lists newest first. */
export async function getPodStatus(runtime: Runtime, uid: string, name: string, namespace: string, runtimeName: string): Promise<RuntimePodStatus> {
  const sel = { labelSelector: { [CRILabels.podUID]: uid } };
  const [sbs, ctrs] = await Promise.all([runtime.listPodSandbox(sel), runtime.listContainers(sel)]);
  const sandboxes: RuntimeSandboxStatus[] = [];
  for (const sb of sbs.sort((a, b) => b.createdAt - a.createdAt)) {
    let ips: string[] = [];
    try {
      const st = await runtime.podSandboxStatus(sb.id);
      if (st.network?.ip) ips = [st.network.ip, ...st.network.additionalIps.map((x) => x.ip)];
    } catch (e) {
      if (isNotFound(e)) continue;
      throw e;
    }
    sandboxes.push({ id: sb.id, ready: sb.state === 'SANDBOX_READY', attempt: sb.metadata.attempt, createdAt: ms(sb.createdAt), ips });
  }
  const containers: RuntimeContainerStatus[] = [];
  for (const c of ctrs) {
    try {
      containers.push(toRuntimeContainerStatus(await runtime.containerStatus(c.id), c.podSandboxId, runtimeName));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  containers.sort((a, b) => b.createdAt - a.createdAt || b.restartCount - a.restartCount);
  const live = sandboxes.find((s) => s.ready) ?? sandboxes[0];
  return { uid, name, namespace, sandboxes, containers, ips: live?.ips ?? [] };
}
