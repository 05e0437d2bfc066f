/**
 * A pod's recorded trace as the trace.k8ts.io/v1alpha1 PodTrace object the API serves:
 * the steps in order (path steps by time, each detail after the path step it lies in)
 * with RFC 3339 microsecond timestamps, offsets and durations, and the summary the table
 * printer reads.
 */
import type { PodTrace, PodTraceStep, PodTraceSummary } from '../api/trace/v1alpha1/podtrace/definition.js';
import { TRACE_GROUP, TRACE_VERSION } from '../api/trace/v1alpha1/podtrace/definition.js';
import type { TraceData, TraceStep } from './recorder.js';

/** ms since the epoch → RFC 3339 with microseconds (`2026-12-01T13:59:01.123456Z`). */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const iso = new Date(whole).toISOString(); // …T13:59:01.123Z
  const micros = Math.round((ms - whole) * 1000);
  return `${iso.slice(0, 23)}${String(Math.min(999, micros)).padStart(3, '0')}Z`;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Path steps in time order; details after the path step whose span holds their start. */
export function orderedSteps(steps: readonly TraceStep[]): TraceStep[] {
  const path = steps.filter((s) => s.level === 0);
  const details = steps.filter((s) => s.level === 1).sort((a, b) => a.start - b.start);
  const out: TraceStep[] = [];
  let d = 0;
  for (const p of path) {
    out.push(p);
    while (d < details.length && details[d]!.start <= p.end) out.push(details[d++]!);
  }
  while (d < details.length) out.push(details[d++]!);
  return out;
}

/** The summary of a trace: offsets of the milestones, sandbox and image time, the slowest path step. */
export function summarize(t: TraceData, now: number): PodTraceSummary {
  const first = t.steps[0]?.start ?? now;
  const path = t.steps.filter((s) => s.level === 0);
  const at = (name: string): number | undefined => {
    const s = path.find((x) => x.name === name);
    return s && round3(s.end - first);
  };
  const lastAt = (name: string): number | undefined => {
    let r: number | undefined;
    for (const s of path) if (s.name === name) r = round3(s.end - first);
    return r;
  };
  const sum = (names: string[]): number | undefined => {
    let total = 0;
    let any = false;
    for (const s of path)
      if (names.includes(s.name)) {
        total += s.end - s.start;
        any = true;
      }
    return any ? round3(total) : undefined;
  };
  const running = at('Running');
  const sum0: PodTraceSummary = { totalMilliseconds: round3((running !== undefined ? first + running : now) - first) };
  const put = <K extends keyof PodTraceSummary>(k: K, v: PodTraceSummary[K] | undefined): void => {
    if (v !== undefined) sum0[k] = v;
  };
  put('scheduledMilliseconds', at('BindingCommit'));
  put('sandboxMilliseconds', sum(['RunPodSandbox', 'CNIAdd']));
  put('imagesMilliseconds', sum(['ImageCheck', 'PullImage']));
  put('startedMilliseconds', lastAt('StartContainer'));
  put('readyMilliseconds', at('Ready'));
  put('runningMilliseconds', running);
  let slow: TraceStep | undefined;
  for (const s of path) if (!slow || s.end - s.start > slow.end - slow.start) slow = s;
  if (slow) put('slowestStep', `${slow.name}${slow.detail ? ` ${slow.detail}` : ''} (${(slow.end - slow.start).toFixed(1)}ms)`);
  return sum0;
}

/** Where the pod is: Running, Stuck (the last path step is a failure), Starting (bound), Scheduling. */
export function phaseOf(t: TraceData): string {
  const path = t.steps.filter((s) => s.level === 0);
  if (path.some((s) => s.name === 'Running')) return 'Running';
  const last = path[path.length - 1];
  if (last?.failure) return 'Stuck';
  if (path.some((s) => s.name === 'BindingCommit' || s.name === 'KubeletWatchReceived')) return 'Starting';
  return 'Scheduling';
}

/**
 * The PodTrace object of a trace.
 * @param now ms since the epoch, for the total of a pod not Running yet
 */
export function toPodTrace(t: TraceData, now: number): PodTrace {
  const first = t.steps[0]?.start ?? now;
  const steps: PodTraceStep[] = orderedSteps(t.steps).map((s) => {
    const o: PodTraceStep = {
      seedStep: s.seed,
      name: s.name,
      component: s.component,
      startTime: microTime(s.start),
      endTime: microTime(s.end),
      offsetMilliseconds: round3(s.start - first),
      durationMilliseconds: round3(s.end - s.start),
    };
    if (s.level === 1) o.detail = true;
    if (s.detail !== undefined) o.target = s.detail;
    if (s.message !== undefined) o.message = s.message;
    if (s.failure) o.failure = true;
    return o;
  });
  const status: PodTrace['status'] = { phase: phaseOf(t), steps, summary: summarize(t, now) };
  if (t.dropped) status.droppedSteps = t.dropped;
  return {
    apiVersion: `${TRACE_GROUP}/${TRACE_VERSION}`,
    kind: 'PodTrace',
    metadata: {
      name: t.name,
      namespace: t.namespace,
      uid: t.uid,
      resourceVersion: String(t.revision),
      creationTimestamp: new Date(Math.floor(first / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    },
    spec: { podName: t.name, podUID: t.uid },
    status,
  };
}
