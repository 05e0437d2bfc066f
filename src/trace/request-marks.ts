/**
 * The API server's part of a pod's trace. A pod's create request is traced before the pod
 * has a UID, so its steps (authentication, authorization, each admission plugin,
 * validation) are buffered on the request and handed to the recorder, with the pod's
 * UID, when storage commits the pod; the response is recorded directly afterwards.
 *
 * The API server sees only the {@link RequestMarks} and {@link RequestTracer} interfaces.
 */
import type { KObject } from '../api/resource.js';
import type { PodKey, PodTraceRecorder } from './recorder.js';
import type { StepName } from './steps.js';

/** The steps of one traced request (set on the request by the tracing filter). */
export interface RequestMarks {
  /** a step of the request that ended now (authentication, authorization, an admission plugin, validation) */
  mark(step: StepName, detail?: string): void;
  /**
   * the object is about to be written (it has its UID): the buffered steps go to its
   * trace; storage's commit is recorded when the watch cache sees it (before any watcher)
   */
  committing(obj: KObject): void;
  /** the write failed after {@link committing}: the trace goes */
  aborted(): void;
  /** the response was written */
  responded(): void;
}

/** What the handler chain asks for each resource request. */
export interface RequestTracer {
  /**
   * The marks of a request worth tracing (a pod create), else undefined.
   * @param receivedAt when the request arrived, performance.now() ms
   * @param traceparent the request's W3C `traceparent` header
   */
  begin(info: { apiGroup: string; resource: string; subresource: string; verb: string }, receivedAt: number, traceparent: string | undefined): RequestMarks | undefined;
}

const toEpoch = (perfMs: number): number => performance.timeOrigin + perfMs;

class PodCreateMarks implements RequestMarks {
  /** step name, end (ms since the epoch), detail — in order */
  private readonly buffered: [StepName, number, string | undefined][] = [];
  private pod?: PodKey;

  constructor(
    private readonly recorder: PodTraceRecorder,
    private readonly receivedAt: number,
    private readonly traceparent: string | undefined,
  ) {}

  mark(step: StepName, detail?: string): void {
    if (this.pod) this.recorder.step(this.pod, step, { detail });
    else this.buffered.push([step, this.recorder.now(), detail]);
  }

  committing(obj: KObject): void {
    const m = obj.metadata;
    if (!m?.uid || !m.name) return;
    const pod: PodKey = { uid: m.uid, namespace: m.namespace ?? '', name: m.name };
    this.pod = pod;
    const r = this.recorder;
    r.begin(pod, this.traceparent);
    r.step(pod, 'RequestReceived', { end: toEpoch(this.receivedAt) });
    for (const [step, end, detail] of this.buffered) r.step(pod, step, { end, detail });
    this.buffered.length = 0;
    this.written = r.now();
  }

  aborted(): void {
    if (this.pod) this.recorder.drop(this.pod.uid);
    this.pod = undefined;
  }

  responded(): void {
    if (this.pod) this.recorder.step(this.pod, 'Response', { start: this.written });
  }

  /** when the write began (ms since the epoch) */
  private written = 0;
}

/** Traces pod creates (POST pods) into `recorder`. */
export function podRequestTracer(recorder: PodTraceRecorder): RequestTracer {
  return {
    begin(info, receivedAt, traceparent) {
      if (info.verb !== 'create' || info.resource !== 'pods' || info.apiGroup !== '' || info.subresource !== '') return undefined;
      return new PodCreateMarks(recorder, receivedAt, traceparent);
    },
  };
}
