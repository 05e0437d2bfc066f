/**
 * Pod phase and the kubelet-owned pod conditions, computed from API container
 * statuses exactly as upstream: getPhase, PodReadyToStartContainers, Initialized,
 * ContainersReady, Ready (with readiness gates).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/status/generate.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_pods.go (getPhase)
 */
import type { ContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { isRestartableInitContainer } from '../../api/core/v1/helpers/containers.js';

const CondReason = {
  UnknownContainerStatuses: 'UnknownContainerStatuses',
  PodCompleted: 'PodCompleted',
  PodFailed: 'PodFailed',
  ContainersNotReady: 'ContainersNotReady',
  ContainersNotInitialized: 'ContainersNotInitialized',
  ReadinessGatesNotReady: 'ReadinessGatesNotReady',
} as const;

/** Go's `%s` of a []string: `[a b]`. */
const goList = (l: string[]): string => `[${l.join(' ')}]`;
const find = (l: ContainerStatus[], n: string): ContainerStatus | undefined => l.find((s) => s.name === n);

/** Upstream HasAnyRegularContainerStarted. */
function hasAnyRegularContainerStarted(pod: Pod, statuses: ContainerStatus[]): boolean {
  for (const c of pod.spec?.containers ?? []) {
    const s = find(statuses, c.name);
    if (!s) continue;
    if (s.state?.running || s.state?.terminated || (s.state?.waiting && s.lastState?.terminated)) return true;
  }
  return false;
}

/** Upstream getPhase. `all` = init + regular container statuses. */
export function getPhase(pod: Pod, all: ContainerStatus[], podIsTerminal: boolean): NonNullable<PodStatus['phase']> {
  const spec = pod.spec!;
  let pendingSidecars = 0;
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of spec.initContainers ?? []) {
    if (isRestartableInitContainer(c)) continue;
    const s = find(all, c.name);
    if (!s) pendingInit++;
    else if (s.state?.running) pendingInit++;
    else if (s.state?.terminated) failedInit += s.state.terminated.exitCode !== 0 ? 1 : 0;
    else if (s.state?.waiting) {
      if (s.lastState?.terminated) failedInit += s.lastState.terminated.exitCode !== 0 ? 1 : 0;
      else pendingInit++;
    } else pendingInit++;
  }
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.initContainers ?? []) {
    if (!isRestartableInitContainer(c)) continue;
    const s = find(all, c.name);
    if (!s) unknown++;
    else if (s.state?.running) {
      if (!s.started) pendingSidecars++;
      running++;
    } else if (s.state?.terminated) {
      // not counted
    } else if (s.state?.waiting) {
      if (!s.lastState?.terminated) {
        pendingSidecars++;
        waiting++;
      }
    } else {
      pendingSidecars++;
      unknown++;
    }
  }
  for (const c of spec.containers) {
    const s = find(all, c.name);
    if (!s) unknown++;
    else if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }
  const policy = spec.restartPolicy ?? 'Always';
  if (failedInit > 0 && policy === 'Never') return 'Failed';
  if (pendingInit > 0 || (pendingSidecars > 0 && !hasAnyRegularContainerStarted(pod, all))) return 'Pending';
  if (waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** True once a ready sandbox with networking exists (upstream: no new sandbox needed). */
export function podReadyToStartContainersCondition(sandboxReadyWithNetwork: boolean): PodCondition {
  return { type: 'PodReadyToStartContainers', status: sandboxReadyWithNetwork ? 'True' : 'False' };
}

export function initializedCondition(pod: Pod, all: ContainerStatus[] | undefined, phase: string): PodCondition {
  const inits = pod.spec?.initContainers ?? [];
  if (!all && inits.length) return { type: 'Initialized', status: 'False', reason: CondReason.UnknownContainerStatuses };
  const statuses = all ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of inits) {
    const s = find(statuses, c.name);
    if (!s) {
      unknown.push(c.name);
      continue;
    }
    if (isRestartableInitContainer(c)) {
      if (!s.started) incomplete.push(c.name);
      continue;
    }
    if (!s.state?.terminated || s.state.terminated.exitCode !== 0) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'Initialized', status: 'True', reason: CondReason.PodCompleted };
  if (hasAnyRegularContainerStarted(pod, statuses)) return { type: 'Initialized', status: 'True' };
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length) msgs.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (msgs.length) return { type: 'Initialized', status: 'False', reason: CondReason.ContainersNotInitialized, message: msgs.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

export function containersReadyCondition(pod: Pod, all: ContainerStatus[] | undefined, phase: string): PodCondition {
  if (!all) return { type: 'ContainersReady', status: 'False', reason: CondReason.UnknownContainerStatuses };
  const unknown: string[] = [];
  const unready: string[] = [];
  const check = (name: string): void => {
    const s = find(all, name);
    if (!s) unknown.push(name);
    else if (!s.ready) unready.push(name);
  };
  for (const c of pod.spec?.initContainers ?? []) if (isRestartableInitContainer(c)) check(c.name);
  for (const c of pod.spec?.containers ?? []) check(c.name);
  if (phase === 'Succeeded' && unknown.length === 0) return { type: 'ContainersReady', status: 'False', reason: CondReason.PodCompleted };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: CondReason.PodFailed };
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length) msgs.push(`containers with unready status: ${goList(unready)}`);
  if (msgs.length) return { type: 'ContainersReady', status: 'False', reason: CondReason.ContainersNotReady, message: msgs.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

export function readyCondition(pod: Pod, oldConditions: readonly PodCondition[], containersReady: PodCondition): PodCondition {
  if (containersReady.status !== 'True') {
    return {
      type: 'Ready',
      status: containersReady.status,
      ...(containersReady.reason ? { reason: containersReady.reason } : {}),
      ...(containersReady.message ? { message: containersReady.message } : {}),
    };
  }
  const unready: string[] = [];
  for (const g of pod.spec?.readinessGates ?? []) {
    const c = oldConditions.find((x) => x.type === g.conditionType);
    if (!c) unready.push(`corresponding condition of pod readiness gate ${JSON.stringify(g.conditionType)} does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate ${JSON.stringify(g.conditionType)} is not "True", but ${c.status}`);
  }
  if (unready.length) return { type: 'Ready', status: 'False', reason: CondReason.ReadinessGatesNotReady, message: unready.join(', ') };
  return { type: 'Ready', status: 'True' };
}
