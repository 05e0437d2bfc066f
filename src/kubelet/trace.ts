/**
 * The kubelet's part of a pod's creation trace (src/trace): the watch receipt, volumes,
 * RunPodSandbox and the pod IP (CNI ADD happens inside RunPodSandbox; the kubelet learns
 * the IP from PodSandboxStatus), each image check or pull, CreateContainer and
 * StartContainer per container, the status write, and failures (FailedMount,
 * ErrImagePull, ImagePullBackOff, CreateContainerError, CrashLoopBackOff) with their
 * messages.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodTraceSink, StepOptions } from '../trace/recorder.js';
import type { StepName } from '../trace/steps.js';

/** Records `step` of `pod` as done now (nothing without a sink). */
export function traceStep(sink: PodTraceSink | undefined, pod: Pod, step: StepName, o?: StepOptions): void {
  const m = pod.metadata;
  if (!sink || !m?.uid || !m.name) return;
  sink.step({ uid: m.uid, namespace: m.namespace ?? '', name: m.name }, step, o);
}

/** The trace step of a failed image check or pull (by the container's waiting reason). */
export function imageFailureStep(reason: string): StepName {
  return reason === 'ImagePullBackOff' ? 'ImagePullBackOff' : 'ErrImagePull';
}
