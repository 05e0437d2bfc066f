/**
 * trace.k8ts.io/v1alpha1 PodTrace: the creation trace of one pod (namespaced, same name as
 * the pod), read-only (get, list, watch). Never stored: the API server computes it from the
 * pod trace recorder (src/trace). Its printer shows where the pod's startup time went:
 * `POD TOTAL SCHEDULED SANDBOX IMAGES STARTED READY SLOWEST STEP` (times are offsets from
 * the create request, except SANDBOX and IMAGES, which are durations).
 *
 * @see docs/pod-creation.md
 */
import type { KObject, ResourceDefinition } from '../../../resource.js';
import { column } from '../../../core/v1/shared/printing.js';

export const TRACE_GROUP = 'trace.k8ts.io';
export const TRACE_VERSION = 'v1alpha1';

/** One step of a PodTrace (`status.steps[]`). */
export interface PodTraceStep {
  /** the seed step number, 1–20 (docs/pod-creation.md) */
  seedStep: number;
  /** step kind (src/trace/steps.ts), e.g. `Authentication`, `Filter`, `RunPodSandbox` */
  name: string;
  /** apiserver, storage, scheduler, kubelet, cri, cni */
  component: string;
  /** RFC 3339 with microseconds */
  startTime: string;
  endTime: string;
  /** from the create request's arrival, ms (3 decimals) */
  offsetMilliseconds: number;
  durationMilliseconds: number;
  /** set for details inside a step and late reports (not on the pod's path; not summed) */
  detail?: boolean;
  /** the plugin, container, image, volume or IP */
  target?: string;
  message?: string;
  failure?: boolean;
}

/** The summary the printer columns read (`status.summary`), ms from the create request; absent until reached. */
export interface PodTraceSummary {
  totalMilliseconds: number;
  scheduledMilliseconds?: number;
  sandboxMilliseconds?: number;
  imagesMilliseconds?: number;
  startedMilliseconds?: number;
  readyMilliseconds?: number;
  runningMilliseconds?: number;
  /** `name (ms)` of the longest step on the path */
  slowestStep?: string;
}

/** trace.k8ts.io/v1alpha1 PodTrace. */
export interface PodTrace extends KObject {
  spec: { podName: string; podUID: string };
  status: {
    /** Running once the Running status is stored; else where the pod is: Scheduling, Starting, Stuck */
    phase: string;
    steps: PodTraceStep[];
    summary: PodTraceSummary;
    /** steps left out because the trace was full */
    droppedSteps?: number;
  };
}

/** `1.234s` / `12ms` / `<none>`. */
export function formatMillis(ms: number | undefined): string {
  if (ms === undefined) return '<none>';
  if (ms < 1) return `${ms.toFixed(2)}ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.floor((ms % 60_000) / 1000)}s`;
}

export const podTraceDefinition: ResourceDefinition = {
  group: TRACE_GROUP,
  version: TRACE_VERSION,
  kind: 'PodTrace',
  listKind: 'PodTraceList',
  resource: 'podtraces',
  singular: 'podtrace',
  namespaced: true,
  shortNames: ['pt'],
  verbs: ['get', 'list', 'watch'],
  table: {
    columns: [
      column('Pod', 'string', 'The pod traced (same name as the PodTrace)', 0, 'name'),
      column('Total', 'string', 'From the create request to Running (or until now)'),
      column('Scheduled', 'string', 'When the binding was stored, from the create request'),
      column('Sandbox', 'string', 'RunPodSandbox and the pod network (CNI ADD)'),
      column('Images', 'string', 'Image checks and pulls'),
      column('Started', 'string', 'When the last container started, from the create request'),
      column('Ready', 'string', 'When Ready=True was stored, from the create request'),
      column('Slowest Step', 'string', 'The longest step on the path'),
      column('Phase', 'string', 'Running, or where the pod is', 1),
    ],
    cells(obj) {
      const t = obj as unknown as PodTrace;
      const s = t.status?.summary ?? { totalMilliseconds: 0 };
      return [
        obj.metadata.name ?? '',
        formatMillis(s.runningMilliseconds ?? s.totalMilliseconds),
        formatMillis(s.scheduledMilliseconds),
        formatMillis(s.sandboxMilliseconds),
        formatMillis(s.imagesMilliseconds),
        formatMillis(s.startedMilliseconds),
        formatMillis(s.readyMilliseconds),
        s.slowestStep ?? '<none>',
        t.status?.phase ?? '',
      ];
    },
  },
};
