/**
 * The API status of a pod from its runtime state (upstream generateAPIPodStatus and
 * convertToAPIContainerStatuses): container statuses (newest container per name,
 * the one before as lastState), waiting reasons from the reason cache, readiness and
 * started from the prober, ephemeral container statuses (never ready), phase, conditions, IPs, startTime, qosClass.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/kubelet_pods.go
 */
import type { Container, ContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { formatTime } from '../../api/core/v1/helpers/conditions.js';
import { isRestartableInitContainer } from '../../api/core/v1/helpers/containers.js';
import { getPodQOS } from '../../api/core/v1/helpers/qos.js';
import { shouldContainerBeRestarted, type RuntimeContainerStatus, type RuntimePodStatus } from '../container/runtime.js';
import { WaitingReason } from '../events.js';
import type { ReasonCache } from '../kuberuntime/runtime-manager.js';
import { containersReadyCondition, getPhase, initializedCondition, podReadyToStartContainersCondition, readyCondition } from './generate.js';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** What the prober knows: undefined = no such probe, 'unknown' = not decided yet. */
export interface ProbeLookup {
  result(podUID: string, containerName: string, containerID: string, kind: ProbeKind): 'success' | 'failure' | 'unknown' | undefined;
}

interface StatusInputs {
  reasons: ReasonCache;
  probes: ProbeLookup;
  hostIPs: string[];
  now: Date;
}

const t = (ms: number): string => formatTime(new Date(ms));

function convertContainerStatus(cs: RuntimeContainerStatus, old: ContainerStatus | undefined): ContainerStatus {
  const s: ContainerStatus = { name: cs.name, restartCount: cs.restartCount, image: cs.image, imageID: cs.imageRef, containerID: cs.containerID, ready: false };
  switch (cs.state) {
    case 'running':
      return { ...s, state: { running: { startedAt: t(cs.startedAt) } } };
    case 'created':
      return { ...s, state: { waiting: {} } };
    case 'exited':
      return {
        ...s,
        state: {
          terminated: {
            exitCode: cs.exitCode,
            ...(cs.reason ? { reason: cs.reason } : {}),
            ...(cs.message ? { message: cs.message } : {}),
            startedAt: cs.startedAt ? t(cs.startedAt) : undefined,
            finishedAt: cs.finishedAt ? t(cs.finishedAt) : undefined,
            containerID: cs.containerID,
          },
        },
      };
    default:
      if (old?.state?.running) {
        return {
          ...s,
          restartCount: (old.restartCount ?? 0) + 1,
          state: { terminated: { reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', exitCode: 137 } },
        };
      }
      return { ...s, state: { waiting: {} } };
  }
}

/** Which list a status belongs to: regular containers are sorted by name, the others keep spec order. */
type StatusKind = 'regular' | 'init' | 'ephemeral';

function convertStatuses(
  pod: Pod,
  ps: RuntimePodStatus | undefined,
  oldList: readonly ContainerStatus[] | undefined,
  containers: readonly Container[],
  hasInit: boolean,
  kind: StatusKind,
  inp: StatusInputs,
): ContainerStatus[] {
  const uid = pod.metadata?.uid ?? '';
  const old = new Map((oldList ?? []).map((s) => [s.name, s]));
  const defaultReason = hasInit ? WaitingReason.PodInitializing : WaitingReason.ContainerCreating;
  const statuses = new Map<string, ContainerStatus>();
  for (const c of containers) {
    const o = old.get(c.name);
    if (o?.state?.terminated) statuses.set(c.name, { ...o });
    else
      statuses.set(c.name, {
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: false,
        restartCount: o?.restartCount ?? 0,
        state: { waiting: { reason: defaultReason } },
        ...(o?.lastState ? { lastState: o.lastState } : {}),
      });
  }
  const seen = new Map<string, number>();
  for (const cs of ps?.containers ?? []) {
    if (!statuses.has(cs.name)) continue;
    const n = seen.get(cs.name) ?? 0;
    if (n >= 2) continue;
    const st = convertContainerStatus(cs, old.get(cs.name));
    if (n === 0) statuses.set(cs.name, st);
    else statuses.get(cs.name)!.lastState = st.state;
    seen.set(cs.name, n + 1);
  }
  for (const c of containers) {
    // an ephemeral container runs once: only one that never started shows a waiting reason
    if (kind === 'ephemeral' ? seen.has(c.name) : !shouldContainerBeRestarted(c, pod, ps)) continue;
    const r = inp.reasons.get(uid, c.name);
    if (!r) continue;
    const s = statuses.get(c.name)!;
    if (s.state?.terminated) s.lastState = s.state;
    s.state = { waiting: { reason: r.reason, ...(r.message ? { message: r.message } : {}) } };
  }
  // Readiness and started (upstream prober manager UpdatePodStatus); ephemeral
  // containers are never probed nor ready.
  if (kind === 'ephemeral') return containers.map((c) => statuses.get(c.name)!);
  for (const c of containers) {
    const s = statuses.get(c.name)!;
    const id = s.containerID ?? '';
    let started = false;
    if (s.state?.running) {
      const r = inp.probes.result(uid, c.name, id, 'startup');
      started = r === undefined || r === 'success';
    }
    s.started = started;
    if (kind === 'init' && !isRestartableInitContainer(c)) {
      s.ready = !!(s.state?.terminated && s.state.terminated.exitCode === 0);
      continue;
    }
    if (!started) {
      s.ready = false;
      continue;
    }
    const r = inp.probes.result(uid, c.name, id, 'readiness');
    s.ready = r === undefined || r === 'success';
  }
  const out = containers.map((c) => statuses.get(c.name)!);
  return kind === 'init' ? out : out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The kubelet's view of `pod.status`. `podIsTerminal` when the worker decided the pod is done. */
export function generateAPIPodStatus(pod: Pod, ps: RuntimePodStatus | undefined, inp: StatusInputs, podIsTerminal = false): PodStatus {
  const old = pod.status ?? {};
  const spec = pod.spec!;
  const hasInit = (spec.initContainers?.length ?? 0) > 0;
  const containerStatuses = convertStatuses(pod, ps, old.containerStatuses, spec.containers, hasInit, 'regular', inp);
  const initContainerStatuses = hasInit ? convertStatuses(pod, ps, old.initContainerStatuses, spec.initContainers!, hasInit, 'init', inp) : undefined;
  // ephemeral containers (kubectl debug) are reported apart and count neither for phase nor readiness
  const ephemeralContainerStatuses = spec.ephemeralContainers?.length
    ? convertStatuses(pod, ps, old.ephemeralContainerStatuses, spec.ephemeralContainers as Container[], hasInit, 'ephemeral', inp)
    : undefined;
  const all = [...(initContainerStatuses ?? []), ...containerStatuses];
  let phase = getPhase(pod, all, podIsTerminal);
  if ((old.phase === 'Succeeded' || old.phase === 'Failed') && phase !== old.phase) phase = old.phase;
  if (podIsTerminal && phase !== 'Succeeded' && phase !== 'Failed') phase = 'Failed';

  const sb = ps?.sandboxes[0];
  const conditions: PodCondition[] = [];
  const oldConds = old.conditions ?? [];
  const kubeletOwned = new Set(['PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers']);
  for (const c of oldConds) if (!kubeletOwned.has(c.type)) conditions.push(c);
  conditions.push(podReadyToStartContainersCondition(!!sb?.ready && (spec.hostNetwork || sb.ips.length > 0)));
  conditions.push(initializedCondition(pod, all, phase));
  const cr = containersReadyCondition(pod, all, phase);
  conditions.push(readyCondition(pod, oldConds, cr));
  conditions.push(cr);
  conditions.push({ type: 'PodScheduled', status: 'True' });
  const nowStr = formatTime(inp.now);
  for (const c of conditions) {
    if (!kubeletOwned.has(c.type)) continue;
    const prev = oldConds.find((x) => x.type === c.type);
    c.lastProbeTime = null as unknown as string;
    c.lastTransitionTime = prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : nowStr;
  }

  let podIPs = ps?.ips ?? [];
  if (spec.hostNetwork) podIPs = inp.hostIPs;
  if (!podIPs.length && old.podIPs?.length) podIPs = old.podIPs.map((p) => p.ip ?? '').filter(Boolean);
  const status: PodStatus = {
    phase,
    conditions,
    hostIP: inp.hostIPs[0],
    hostIPs: inp.hostIPs.map((ip) => ({ ip })),
    ...(podIPs.length ? { podIP: podIPs[0], podIPs: podIPs.map((ip) => ({ ip })) } : {}),
    startTime: old.startTime ?? nowStr,
    containerStatuses,
    ...(initContainerStatuses ? { initContainerStatuses } : {}),
    ...(ephemeralContainerStatuses ? { ephemeralContainerStatuses } : {}),
    qosClass: old.qosClass ?? getPodQOS(pod),
  };
  return status;
}
