/**
 * The kubelet's view of a pod in the runtime (upstream kubecontainer.PodStatus),
 * built from CRI sandboxes and containers labelled with the pod's UID, plus the
 * small helpers upstream keeps in pkg/kubelet/container/helpers.go.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/container/runtime.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/container/helpers.go
 */
import type { Container, LifecycleHandler, Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../api/resource.js';

export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'unknown';

/** One container as the runtime reports it (times in ms since the epoch, 0 = unset). */
export interface RuntimeContainerStatus {
  /** raw CRI id */
  id: string;
  /** `<runtimeName>://<id>`, e.g. `sim://3f…` or `containerd://3f…` */
  containerID: string;
  name: string;
  sandboxId: string;
  state: RuntimeContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  /** image as in the pod spec */
  image: string;
  /** image ID / digest the runtime ran */
  imageRef: string;
  restartCount: number;
  /** spec hash recorded at creation */
  hash: string;
  /** host path of the termination message file, if any */
  terminationMessageHostPath?: string;
  /** the preStop hook recorded at creation (runs even when the pod spec is gone) */
  preStop?: LifecycleHandler;
  /** absolute path of its CRI log file ('' when unknown) */
  logPath?: string;
}

export interface RuntimeSandboxStatus {
  id: string;
  ready: boolean;
  attempt: number;
  createdAt: number;
  ips: string[];
}

/** Everything the runtime knows about one pod. Lists are newest first. */
export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  sandboxes: RuntimeSandboxStatus[];
  containers: RuntimeContainerStatus[];
  /** IPs of the newest ready sandbox (or newest sandbox) */
  ips: string[];
}

/** `name_namespace(uid)` as upstream's format.Pod. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`;
}

/** The event fieldPath of a container: `spec.containers{nginx}` / `spec.initContainers{install}`. */
export function containerFieldPath(pod: Pod, name: string): string {
  if (pod.spec?.initContainers?.some((c) => c.name === name)) return `spec.initContainers{${name}}`;
  if (pod.spec?.ephemeralContainers?.some((c) => c.name === name)) return `spec.ephemeralContainers{${name}}`;
  return `spec.containers{${name}}`;
}

/** Newest status of the container named `name`. */
export function latestStatus(ps: RuntimePodStatus | undefined, name: string): RuntimeContainerStatus | undefined {
  return ps?.containers.find((c) => c.name === name);
}

/**
 * Upstream ShouldContainerBeRestarted: a container that never ran or is not running
 * restarts per the pod's restartPolicy (Always; OnFailure when it did not exit 0).
 */
export function shouldContainerBeRestarted(c: Container, pod: Pod, ps: RuntimePodStatus | undefined): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  const st = latestStatus(ps, c.name);
  if (!st || st.state === 'created' || st.state === 'unknown') return true;
  if (st.state === 'running') return false;
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return st.exitCode !== 0;
  return true;
}

/** Containers of a pod that the kubelet runs: init (incl. sidecars) and regular. */
export function allContainers(pod: Pod): Container[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
}

/** The object events about `pod` are recorded against (kind/apiVersion set even for list items). */
export function podRef(pod: Pod): KObject {
  const m = pod.metadata ?? {};
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion } };
}
