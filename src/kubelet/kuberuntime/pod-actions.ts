/**
 * What a sync must do to bring a pod's runtime state to its spec (upstream
 * computePodActions + computeInitContainerActions): create a sandbox (and kill what
 * is left of the old one), which init containers to start (strictly in order;
 * restartable sidecars only need to have started), which containers to start per
 * restartPolicy, which to kill (failed liveness/startup probes, changed definition),
 * and which ephemeral containers to start (only into an existing sandbox).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kuberuntime/kuberuntime_manager.go
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { isRestartableInitContainer as isRestartableInit } from '../../api/core/v1/helpers/containers.js';
import { latestStatus, shouldContainerBeRestarted, type RuntimeContainerStatus, type RuntimePodStatus } from '../container/runtime.js';
import { Msg } from '../events.js';
import { containerHash } from './labels.js';

export interface ContainerToKill {
  container: Container;
  status: RuntimeContainerStatus;
  /** Killing event message ('' = default `Stopping container x`) */
  message: string;
  /** why: a failed probe's own terminationGracePeriodSeconds applies to its kills */
  reason?: KillReason;
}

/** Why a container is killed (upstream containerKillReason). */
export type KillReason = 'liveness' | 'startup' | 'postStartHook' | '';

export interface PodActions {
  killPod: boolean;
  createSandbox: boolean;
  /** the existing sandbox ('' when none) */
  sandboxId: string;
  attempt: number;
  initToStart: Container[];
  containersToStart: Container[];
  /**
   * Ephemeral containers (kubectl debug) with no runtime status yet: started once in
   * the existing sandbox, before init containers, never restarted (upstream
   * EphemeralContainersToStart). Empty while the sandbox is (re)created.
   */
  ephemeralToStart: Container[];
  containersToKill: ContainerToKill[];
}

/** Probe verdicts by container ID. */
export interface ProbeVerdicts {
  livenessFailed(containerID: string): boolean;
  startupFailed(containerID: string): boolean;
  /** started per startup probe (true when there is none) */
  started(containerID: string, c: Container): boolean;
}

export function computePodActions(pod: Pod, ps: RuntimePodStatus, probes: ProbeVerdicts): PodActions {
  const spec = pod.spec!;
  const policy = spec.restartPolicy ?? 'Always';
  const sb = ps.sandboxes[0];
  const ready = ps.sandboxes.filter((s) => s.ready);
  const needSandbox = !sb || !sb.ready || ready.length > 1 || (!spec.hostNetwork && sb.ips.length === 0);
  const a: PodActions = {
    killPod: needSandbox,
    createSandbox: needSandbox,
    sandboxId: sb?.id ?? '',
    attempt: sb ? sb.attempt + 1 : 0,
    initToStart: [],
    containersToStart: [],
    ephemeralToStart: [],
    containersToKill: [],
  };
  if (needSandbox) {
    if (policy === 'Never' && sb && ps.containers.length) {
      a.createSandbox = false;
      return a;
    }
    const inits = spec.initContainers ?? [];
    if (inits.length) a.initToStart = [inits[0]];
    else {
      for (const c of spec.containers) {
        const st = latestStatus(ps, c.name);
        if (policy === 'OnFailure' && st?.state === 'exited' && st.exitCode === 0) continue;
        a.containersToStart.push(c);
      }
    }
    return a;
  }

  // Ephemeral containers may start before initialization completes; one that ever ran
  // (any runtime status) is done for good.
  for (const ec of spec.ephemeralContainers ?? []) if (!latestStatus(ps, ec.name)) a.ephemeralToStart.push(ec as Container);

  const inSandbox = (st: RuntimeContainerStatus | undefined): st is RuntimeContainerStatus => !!st && st.sandboxId === sb.id;
  const regularStarted = spec.containers.some((c) => inSandbox(latestStatus(ps, c.name)));
  let initDone = true;
  for (const c of spec.initContainers ?? []) {
    const st = latestStatus(ps, c.name);
    if (isRestartableInit(c)) {
      if (!inSandbox(st)) {
        a.initToStart.push(c);
        if (!regularStarted) {
          initDone = false;
          break;
        }
        continue;
      }
      if (st.state === 'running') {
        const [msg, reason] = probeKill(c, st, probes);
        if (msg) {
          a.containersToKill.push({ container: c, status: st, message: msg, reason });
          a.initToStart.push(c);
        } else if (!probes.started(st.containerID, c) && !regularStarted) {
          initDone = false;
          break;
        }
        continue;
      }
      if (st.state !== 'exited') a.containersToKill.push({ container: c, status: st, message: '' });
      if (!pod.metadata?.deletionTimestamp) a.initToStart.push(c);
      if (!regularStarted) {
        initDone = false;
        break;
      }
      continue;
    }
    if (regularStarted) continue;
    if (!inSandbox(st)) {
      a.initToStart.push(c);
      initDone = false;
      break;
    }
    if (st.state === 'running') {
      initDone = false;
      break;
    }
    if (st.state === 'exited' && st.exitCode === 0) continue;
    initDone = false;
    if (st.state === 'exited') {
      if (policy === 'Never') {
        a.killPod = true;
        a.initToStart = [];
        return a;
      }
      a.initToStart.push(c);
      break;
    }
    a.containersToKill.push({ container: c, status: st, message: '' });
    a.initToStart.push(c);
    break;
  }
  if (!initDone) return a;

  let keep = 0;
  for (const c of spec.containers) {
    const st = latestStatus(ps, c.name);
    if (!st || st.state !== 'running') {
      if (st && (st.state === 'created' || st.state === 'unknown')) a.containersToKill.push({ container: c, status: st, message: '' });
      if (shouldContainerBeRestarted(c, pod, ps)) a.containersToStart.push(c);
      continue;
    }
    let msg = '';
    let reason: KillReason = '';
    let restart = policy !== 'Never';
    if (st.hash && st.hash !== containerHash(c)) {
      msg = Msg.definitionChanged(c.name);
      restart = true;
    } else [msg, reason] = probeKill(c, st, probes);
    if (!msg) {
      keep++;
      continue;
    }
    if (!restart) msg = msg.replace(/, will be restarted$/, '');
    else a.containersToStart.push(c);
    a.containersToKill.push({ container: c, status: st, message: msg, reason });
  }
  if (keep === 0 && a.containersToStart.length === 0) {
    a.killPod = true;
    a.initToStart = [];
  }
  return a;
}

function probeKill(c: Container, st: RuntimeContainerStatus, probes: ProbeVerdicts): [string, KillReason] {
  if (probes.livenessFailed(st.containerID)) return [Msg.failedLiveness(c.name), 'liveness'];
  if (probes.startupFailed(st.containerID)) return [Msg.failedStartup(c.name), 'startup'];
  return ['', ''];
}
