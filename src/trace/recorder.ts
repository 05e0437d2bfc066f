/**
 * The per-pod creation trace: every component (API server, scheduler, kubelet) records the
 * steps it did for a pod, keyed by the pod's UID, with sub-millisecond wall-clock
 * timestamps. Memory is bounded: at most {@link RecorderOptions.maxSteps} steps per pod
 * (packed in typed arrays: 17 bytes a step) and at most {@link RecorderOptions.maxPods} pods
 * (the oldest trace goes first); a trace is dropped with its pod.
 *
 * The steps on the pod's path are contiguous: each starts where the previous one ended,
 * so their durations add up to the pod's create→Running time exactly. A step whose end
 * lies before the path's last end (a component reporting late, e.g. the scheduler's bind
 * response after the kubelet already saw the pod) and the details inside one step (each
 * Filter plugin across nodes) are kept as nested detail steps (level 1) with their own
 * start and end.
 *
 * Components in this process call the recorder directly; the {@link PodTraceSink} interface
 * is what a component on another machine would report to (e.g. through the API).
 */
import { STEP_KINDS, stepIndex, type StepName } from './steps.js';

/** The pod a step belongs to. */
export interface PodKey {
  uid: string;
  namespace: string;
  name: string;
}

/** Optional parts of a recorded step. */
export interface StepOptions {
  /** when the step ended, ms since the epoch (sub-ms); default now */
  end?: number;
  /**
   * when the component began the step, ms since the epoch: a step that began before the
   * path's last end ran beside the path (e.g. the scheduler waiting for its bind response
   * while storage committed the binding) and is kept as a detail
   */
  start?: number;
  /** the plugin, container, image, volume or IP the step is about */
  detail?: string;
  /** a failure's message (upstream's event or condition text) */
  message?: string;
}

/** What a component reports steps to (in-process: the recorder itself). */
export interface PodTraceSink {
  /** A step on the pod's path that ended now (or at `o.end`); it started where the previous step ended. */
  step(pod: PodKey, name: StepName, o?: StepOptions): void;
  /** A detail inside the path's current step with its own start and end (ms since the epoch). */
  detail(pod: PodKey, name: StepName, start: number, end: number, detail?: string, message?: string): void;
}

/** One recorded step as read back. */
export interface TraceStep {
  /** step kind name (see steps.ts) */
  name: string;
  seed: number;
  component: string;
  /** ms since the epoch */
  start: number;
  end: number;
  /** 0: on the path; 1: a detail or a late report */
  level: 0 | 1;
  detail?: string;
  message?: string;
  failure?: boolean;
}

/** One pod's trace as read back. */
export interface TraceData extends PodKey {
  /** changes with every recorded step (a counter shared by all traces) */
  revision: number;
  steps: TraceStep[];
  /** steps left out because the trace was full */
  dropped: number;
}

export interface RecorderOptions {
  /** traces kept at most (oldest dropped first); default 5000 */
  maxPods?: number;
  /** steps per pod at most; default 64 */
  maxSteps?: number;
  /** ms since the epoch with sub-ms precision; default performance.timeOrigin + performance.now() */
  now?: () => number;
}

const MESSAGE_LIMIT = 512;
const INITIAL_STEPS = 16;
/** the first steps (the API server's and the first scheduling attempt) are kept when a trace is full */
const KEEP_HEAD = 24;

/** ms since the epoch with sub-ms precision. */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

class Trace {
  revision = 0;
  n = 0;
  dropped = 0;
  /** start, end per step (ms since the epoch) */
  times = new Float64Array(INITIAL_STEPS * 2);
  /** kind index | level << 7 per step */
  kinds = new Uint8Array(INITIAL_STEPS);
  /** the detail (plugin, container, image…) per step, once any step has one */
  details?: (string | undefined)[];
  /** failure messages by step index (rare) */
  messages?: Map<number, string>;
  lastEnd = 0;
  /** the W3C traceparent of the create request, when it had one */
  traceparent?: string;
  constructor(
    readonly uid: string,
    public namespace: string,
    public name: string,
  ) {}
}

/** A change: a step recorded (`step` set) or a trace dropped (`step` undefined). */
export interface TraceChange {
  pod: PodKey;
  step?: TraceStep;
  /** the whole trace now (built on demand) */
  read(): TraceData | undefined;
}

type Listener = (c: TraceChange) => void;

export class PodTraceRecorder implements PodTraceSink {
  private readonly traces = new Map<string, Trace>();
  private readonly byName = new Map<string, string>();
  private readonly listeners = new Set<Listener>();
  private revision = 0;
  private readonly maxPods: number;
  private readonly maxSteps: number;
  readonly now: () => number;

  constructor(o: RecorderOptions = {}) {
    this.maxPods = o.maxPods ?? 5000;
    this.maxSteps = Math.max(KEEP_HEAD + 8, o.maxSteps ?? 64);
    this.now = o.now ?? preciseNow;
  }

  /** The current revision (the highest of all traces). */
  get resourceVersion(): number {
    return this.revision;
  }

  /** How many traces are kept. */
  get size(): number {
    return this.traces.size;
  }

  step(pod: PodKey, name: StepName, o: StepOptions = {}): void {
    const t = this.traceFor(pod);
    const end = o.end ?? this.now();
    if (t.n === 0) {
      t.lastEnd = end;
      this.push(t, stepIndex(name), end, end, 0, o.detail, o.message);
    } else if (end < t.lastEnd || (o.start !== undefined && o.start < t.lastEnd)) {
      this.push(t, stepIndex(name), Math.min(o.start ?? end, end), end, 1, o.detail, o.message);
    } else {
      this.push(t, stepIndex(name), t.lastEnd, end, 0, o.detail, o.message);
      t.lastEnd = end;
    }
    this.changed(t);
  }

  detail(pod: PodKey, name: StepName, start: number, end: number, detail?: string, message?: string): void {
    const t = this.traceFor(pod);
    this.push(t, stepIndex(name), start, Math.max(start, end), 1, detail, message);
    this.changed(t);
  }

  /**
   * Starts the trace of a pod before its first step, with the W3C `traceparent` its
   * create request carried (OpenTelemetry export continues that trace).
   */
  begin(pod: PodKey, traceparent?: string): void {
    const t = this.traceFor(pod);
    if (traceparent) t.traceparent = traceparent;
  }

  /** Notes the W3C `traceparent` the pod's create request carried (OpenTelemetry export continues that trace). */
  setTraceParent(uid: string, traceparent: string): void {
    const t = this.traces.get(uid);
    if (t) t.traceparent = traceparent;
  }

  /** The W3C `traceparent` of the pod's create request, if it had one. */
  traceParentOf(uid: string): string | undefined {
    return this.traces.get(uid)?.traceparent;
  }

  /** Forgets a pod's trace (the pod is gone). */
  drop(uid: string): void {
    const t = this.traces.get(uid);
    if (!t) return;
    this.traces.delete(uid);
    if (this.byName.get(`${t.namespace}/${t.name}`) === uid) this.byName.delete(`${t.namespace}/${t.name}`);
    this.revision++;
    const pod: PodKey = { uid, namespace: t.namespace, name: t.name };
    for (const l of this.listeners) l({ pod, read: () => undefined });
  }

  /** The trace of pod `namespace/name`, if one is kept. */
  get(namespace: string, name: string): TraceData | undefined {
    const uid = this.byName.get(`${namespace}/${name}`);
    const t = uid === undefined ? undefined : this.traces.get(uid);
    return t && this.read(t);
  }

  /** Whether a trace of the pod with this UID is kept. */
  has(uid: string): boolean {
    return this.traces.has(uid);
  }

  /** The trace of the pod with this UID. */
  getByUID(uid: string): TraceData | undefined {
    const t = this.traces.get(uid);
    return t && this.read(t);
  }

  /** Every kept trace (of one namespace when given), oldest first. */
  list(namespace?: string): TraceData[] {
    const out: TraceData[] = [];
    for (const t of this.traces.values()) if (namespace === undefined || namespace === '' || t.namespace === namespace) out.push(this.read(t));
    return out;
  }

  /** Calls `l` after every change; returns the unsubscribe function. */
  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /**
   * Bytes the step buffers of all traces hold (typed arrays and the detail slots; the
   * strings themselves are shared with the components' objects and not counted).
   */
  bytes(): number {
    let b = 0;
    for (const t of this.traces.values()) b += t.times.byteLength + t.kinds.byteLength + (t.details ? t.details.length * 8 : 0);
    return b;
  }

  private traceFor(pod: PodKey): Trace {
    let t = this.traces.get(pod.uid);
    if (t) {
      if (t.name !== pod.name || t.namespace !== pod.namespace) {
        t.name = pod.name;
        t.namespace = pod.namespace;
        this.byName.set(`${pod.namespace}/${pod.name}`, pod.uid);
      }
      return t;
    }
    t = new Trace(pod.uid, pod.namespace, pod.name);
    this.traces.set(pod.uid, t);
    this.byName.set(`${pod.namespace}/${pod.name}`, pod.uid);
    if (this.traces.size > this.maxPods) {
      const oldest = this.traces.keys().next().value;
      if (oldest !== undefined) this.drop(oldest);
    }
    return t;
  }

  private push(t: Trace, kind: number, start: number, end: number, level: 0 | 1, detail?: string, message?: string): void {
    if (t.n === this.maxSteps) {
      // full: the head stays, the oldest step after it goes
      t.times.copyWithin(KEEP_HEAD * 2, (KEEP_HEAD + 1) * 2, t.n * 2);
      t.kinds.copyWithin(KEEP_HEAD, KEEP_HEAD + 1, t.n);
      t.details?.splice(KEEP_HEAD, 1);
      if (t.messages) {
        const m = new Map<number, string>();
        for (const [i, v] of t.messages) if (i !== KEEP_HEAD) m.set(i > KEEP_HEAD ? i - 1 : i, v);
        t.messages = m;
      }
      t.n--;
      t.dropped++;
    }
    if (t.n === t.kinds.length) {
      const cap = Math.min(this.maxSteps, Math.ceil(t.kinds.length * 1.5));
      const times = new Float64Array(cap * 2);
      times.set(t.times);
      t.times = times;
      const kinds = new Uint8Array(cap);
      kinds.set(t.kinds);
      t.kinds = kinds;
    }
    const i = t.n++;
    t.times[i * 2] = start;
    t.times[i * 2 + 1] = end;
    t.kinds[i] = kind | (level << 7);
    if (detail !== undefined || t.details) (t.details ??= [])[i] = detail;
    if (message !== undefined) (t.messages ??= new Map()).set(i, message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT - 4)} ...` : message);
  }

  private changed(t: Trace): void {
    t.revision = ++this.revision;
    if (this.listeners.size === 0) return;
    const c: TraceChange = { pod: { uid: t.uid, namespace: t.namespace, name: t.name }, step: this.stepAt(t, t.n - 1), read: () => this.read(t) };
    for (const l of this.listeners) l(c);
  }

  private stepAt(t: Trace, i: number): TraceStep {
    const packed = t.kinds[i]!;
    const k = STEP_KINDS[packed & 0x7f]!;
    const s: TraceStep = { name: k.name, seed: k.seed, component: k.component, start: t.times[i * 2]!, end: t.times[i * 2 + 1]!, level: (packed >> 7) as 0 | 1 };
    const detail = t.details?.[i];
    const message = t.messages?.get(i);
    if (detail !== undefined) s.detail = detail;
    if (message !== undefined) s.message = message;
    if (k.failure) s.failure = true;
    return s;
  }

  private read(t: Trace): TraceData {
    const steps: TraceStep[] = [];
    for (let i = 0; i < t.n; i++) steps.push(this.stepAt(t, i));
    return { uid: t.uid, namespace: t.namespace, name: t.name, revision: t.revision, steps, dropped: t.dropped };
  }
}
