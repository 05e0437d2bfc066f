/**
 * The scheduler's part of a pod's creation trace (src/trace): the watch receipt, the
 * queue wait, each extension point of the scheduling cycle (with each plugin as a
 * detail), the binding request, and FailedScheduling with upstream's message.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodKey, PodTraceSink } from '../trace/recorder.js';
import type { StepName } from '../trace/steps.js';
import type { CycleState } from './framework/cycle-state.js';

const keyOf = (pod: Pod): PodKey => ({ uid: pod.metadata?.uid ?? '', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' });

/** Records `step` of `pod` as done now (nothing without a sink). */
export function traceStep(sink: PodTraceSink | undefined, pod: Pod, step: StepName, message?: string, start?: number): void {
  if (sink && pod.metadata?.uid) sink.step(keyOf(pod), step, { message, start });
}

/**
 * Makes the cycle report each plugin's run as a detail of `pod`'s trace
 * (CycleState.pluginObserver, called with performance.now() start times).
 */
export function tracePlugins(sink: PodTraceSink | undefined, state: CycleState, pod: Pod): void {
  if (!sink || !pod.metadata?.uid) return;
  const key = keyOf(pod);
  state.pluginObserver = (plugin, point, t0, rejected) => {
    const end = performance.now();
    sink.detail(key, point as StepName, performance.timeOrigin + t0, performance.timeOrigin + end, plugin, rejected?.length ? `rejected ${nodeList(rejected)}` : undefined);
  };
}

/** `a, b, c` (at most 8 names, then `and N more`). */
function nodeList(nodes: readonly string[]): string {
  return nodes.length <= 8 ? nodes.join(', ') : `${nodes.slice(0, 8).join(', ')} and ${nodes.length - 8} more`;
}
