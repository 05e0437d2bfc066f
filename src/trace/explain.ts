/**
 * Why a pod is not Running yet, in the words of docs/pod-creation.md's troubleshooting
 * table: the seed step it is stuck at, since when, upstream's reason and message, and the
 * Event that proves it. Reads the pod (conditions, container states), its PodTrace and its
 * Events; decides nothing the pod's own status does not already say.
 *
 * @see docs/pod-creation.md
 */
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import type { PodTrace } from '../api/trace/v1alpha1/podtrace/definition.js';

/** Where a pod is stuck. */
export interface StuckExplanation {
  /** seed step number (docs/pod-creation.md) */
  step: number;
  /** e.g. `scheduling: no node passes the filters` */
  title: string;
  /** upstream's reason (Unschedulable, ErrImagePull, ImagePullBackOff, FailedMount…) */
  reason: string;
  /** upstream's message (the condition's, the container state's or the event's) */
  message: string;
  /** since when (RFC 3339), when known */
  since?: string;
  /** the event that proves it */
  event?: { type: string; reason: string; message: string; count: number; lastTimestamp: string };
  /** per Filter plugin, the nodes it rejected (from the trace) */
  rejectedBy?: { plugin: string; nodes: string }[];
  /** what to look at next (from the troubleshooting table) */
  hint: string;
}

const eventTime = (e: Event): string => e.lastTimestamp ?? (e as { eventTime?: string }).eventTime ?? e.firstTimestamp ?? '';

/** The newest event of the pod with one of `reasons`. */
function newest(events: readonly Event[], reasons: string[], containsImage?: string): Event | undefined {
  let best: Event | undefined;
  for (const e of events) {
    if (!reasons.includes(e.reason ?? '')) continue;
    if (containsImage && !(e.message ?? '').includes(containsImage)) continue;
    if (!best || eventTime(e) >= eventTime(best)) best = e;
  }
  return best;
}

const proof = (e: Event | undefined): StuckExplanation['event'] =>
  e && { type: e.type ?? '', reason: e.reason ?? '', message: e.message ?? '', count: e.count ?? 1, lastTimestamp: eventTime(e) };

/**
 * Why `pod` is not Running (or not Ready), or undefined when it is Running and Ready (or
 * finished).
 * @param events the pod's Events (involvedObject = the pod)
 */
export function explainStuck(pod: Pod, trace: PodTrace | undefined, events: readonly Event[]): StuckExplanation | undefined {
  const st = pod.status ?? {};
  if (st.phase === 'Succeeded' || st.phase === 'Failed') return undefined;
  const sched = st.conditions?.find((c) => c.type === 'PodScheduled');
  if (!pod.spec?.nodeName) {
    if (sched?.reason === 'SchedulingGated') {
      return {
        step: 9,
        title: 'scheduling queue: the pod has scheduling gates',
        reason: 'SchedulingGated',
        message: sched.message ?? '',
        since: sched.lastTransitionTime,
        hint: `spec.schedulingGates: ${(pod.spec?.schedulingGates ?? []).map((g) => g.name).join(', ')}`,
      };
    }
    const ev = newest(events, ['FailedScheduling']);
    const rejectedBy = (trace?.status.steps ?? [])
      .filter((s) => s.name === 'Filter' && s.detail && s.message)
      .map((s) => ({ plugin: s.target ?? '', nodes: s.message!.replace(/^rejected /, '') }));
    const last = new Map(rejectedBy.map((r) => [r.plugin, r]));
    return {
      step: 10,
      title: 'filtering: no node can run the pod',
      reason: sched?.reason ?? 'Pending',
      message: sched?.message ?? ev?.message ?? 'the scheduler has not tried the pod yet',
      since: sched?.lastTransitionTime ?? pod.metadata?.creationTimestamp,
      event: proof(ev),
      rejectedBy: last.size ? [...last.values()] : undefined,
      hint: 'the FailedScheduling event names each reason and how many nodes it rejected: resources, nodeSelector/affinity, taints, host ports, volumes',
    };
  }
  const statuses = [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])];
  for (const cs of statuses) {
    const w = cs.state?.waiting;
    if (!w?.reason || w.reason === 'ContainerCreating' || w.reason === 'PodInitializing') continue;
    if (w.reason === 'ErrImagePull' || w.reason === 'ImagePullBackOff' || w.reason === 'InvalidImageName' || w.reason === 'ErrImageNeverPull') {
      const ev = newest(events, w.reason === 'ImagePullBackOff' ? ['BackOff', 'Failed'] : ['Failed', 'BackOff'], cs.image);
      return {
        step: 17,
        title: `image pull: container ${cs.name} cannot get image ${cs.image}`,
        reason: w.reason,
        message: w.message ?? '',
        since: traceFirstFailure(trace, ['ErrImagePull', 'ImagePullBackOff']),
        event: proof(ev),
        hint: 'a wrong image name or tag, a private registry without imagePullSecrets, or no network to the registry',
      };
    }
    if (w.reason === 'CrashLoopBackOff') {
      return {
        step: 18,
        title: `containers: ${cs.name} keeps exiting`,
        reason: w.reason,
        message: w.message ?? '',
        since: traceFirstFailure(trace, ['CrashLoopBackOff']),
        event: proof(newest(events, ['BackOff'])),
        hint: `kubectl logs ${pod.metadata?.name} -c ${cs.name} --previous`,
      };
    }
    return {
      step: 18,
      title: `containers: ${cs.name} cannot be created`,
      reason: w.reason,
      message: w.message ?? '',
      event: proof(newest(events, ['Failed'])),
      hint: 'the container configuration refers to something missing (a ConfigMap or Secret key, a volume)',
    };
  }
  if (st.phase === 'Pending' || !st.phase) {
    const mount = newest(events, ['FailedMount']);
    if (mount) {
      return {
        step: 14,
        title: 'volumes: a volume cannot be mounted',
        reason: 'FailedMount',
        message: mount.message ?? '',
        since: mount.firstTimestamp,
        event: proof(mount),
        hint: 'a missing ConfigMap, Secret or PersistentVolumeClaim, or a CSI attach that does not finish',
      };
    }
    const sandbox = newest(events, ['FailedCreatePodSandBox']);
    if (sandbox) {
      return {
        step: 15,
        title: 'pod sandbox: RunPodSandbox fails',
        reason: 'FailedCreatePodSandBox',
        message: sandbox.message ?? '',
        since: sandbox.firstTimestamp,
        event: proof(sandbox),
        hint: 'the pause image, the CNI plugin not ready, or no pod IP left',
      };
    }
    const path = (trace?.status.steps ?? []).filter((s) => !s.detail);
    const last = path[path.length - 1];
    return {
      step: last ? Math.min(20, last.seedStep + 1) : 13,
      title: `ContainerCreating: waiting after ${last?.name ?? 'binding'}`,
      reason: 'ContainerCreating',
      message: last
        ? `the last step, ${last.name}${last.target ? ` ${last.target}` : ''}, ended at ${last.endTime}; nothing has happened since`
        : 'the kubelet has not reported a step yet',
      since: last?.endTime,
      hint: 'the kubelet is mounting volumes, creating the sandbox or pulling images; see the events',
    };
  }
  const ready = st.conditions?.find((c) => c.type === 'Ready');
  if (st.phase === 'Running' && ready && ready.status !== 'True') {
    const ev = newest(events, ['Unhealthy']);
    return {
      step: 19,
      title: 'probes: the pod is Running but not Ready',
      reason: ready.reason ?? 'ContainersNotReady',
      message: ready.message ?? '',
      since: ready.lastTransitionTime,
      event: proof(ev),
      hint: 'the readiness probe fails; see the Unhealthy events',
    };
  }
  return undefined;
}

function traceFirstFailure(trace: PodTrace | undefined, names: string[]): string | undefined {
  return trace?.status.steps.find((s) => names.includes(s.name))?.startTime;
}
