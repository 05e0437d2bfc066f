/**
 * Prometheus metrics of pod creation, fed by the pod trace recorder:
 *  - `k8ts_pod_creation_step_duration_seconds{step}`: each step on a pod's path (the
 *    steps of docs/pod-creation.md as the trace names them);
 *  - `kubelet_pod_start_sli_duration_seconds`: upstream's pod start SLI — from the create
 *    request to the Running status stored, without image pulls (upstream measures from the
 *    pod's creation timestamp to all containers started as seen by the watch, excluding
 *    image pulls and init containers).
 * `scheduler_pod_scheduling_sli_duration_seconds` is the scheduler's own (src/scheduler/metrics.ts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/kubelet/metrics/metrics.go
 */
import { FastHistogram } from '../util/metrics-fast.js';
import type { PodTraceRecorder } from './recorder.js';

/** Upstream's PodStartSLIDuration buckets (seconds). */
const POD_START_SLI_BUCKETS = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];
/** 50 µs to ~100 s */
const STEP_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The metrics, recording from `recorder` once constructed. */
export class PodCreationMetrics {
  readonly stepDuration = new FastHistogram(
    'k8ts_pod_creation_step_duration_seconds',
    "Duration of each step of a pod's creation (docs/pod-creation.md), by step.",
    ['step'],
    STEP_BUCKETS,
  );
  readonly podStartSLI = new FastHistogram(
    'kubelet_pod_start_sli_duration_seconds',
    'Duration in seconds to start a pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch',
    [],
    POD_START_SLI_BUCKETS,
  );
  /** pulls per pod until Running (ms), dropped when the pod is Running or gone */
  private readonly pulls = new Map<string, number>();
  private readonly firsts = new Map<string, number>();

  constructor(recorder: PodTraceRecorder) {
    recorder.subscribe((c) => {
      const s = c.step;
      const uid = c.pod.uid;
      if (!s) {
        this.pulls.delete(uid);
        this.firsts.delete(uid);
        return;
      }
      if (s.name === 'RequestReceived') this.firsts.set(uid, s.start);
      if (s.level !== 0) return;
      this.stepDuration.labels(s.name).observe((s.end - s.start) / 1000);
      if (s.name === 'PullImage') this.pulls.set(uid, (this.pulls.get(uid) ?? 0) + (s.end - s.start));
      if (s.name === 'Running') {
        const first = this.firsts.get(uid);
        if (first !== undefined) this.podStartSLI.labels().observe(Math.max(0, s.end - first - (this.pulls.get(uid) ?? 0)) / 1000);
        this.pulls.delete(uid);
        this.firsts.delete(uid);
      }
    });
  }

  /** Every metric, for a registry. */
  all(): FastHistogram[] {
    return [this.stepDuration, this.podStartSLI];
  }
}
