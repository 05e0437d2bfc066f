/**
 * OpenTelemetry export of pod creation traces: with upstream's `--tracing-config-file`
 * (apiserver.config.k8s.io TracingConfiguration: `endpoint`, `samplingRatePerMillion`),
 * each pod's trace becomes one OpenTelemetry trace — a root span for the pod's creation
 * (a child of the create request's W3C `traceparent` when it carried one) and one span per
 * step, from the component that did it (service.name kube-apiserver, kube-scheduler or
 * kubelet) — exported over OTLP/HTTP by the OpenTelemetry JS SDK.
 *
 * Sampling is upstream's: parent-based, else `samplingRatePerMillion` of new traces
 * (default 0, as kube-apiserver: nothing unless the request's parent is sampled).
 *
 * @see https://kubernetes.io/docs/concepts/cluster-administration/system-traces/
 * @see https://github.com/kubernetes/component-base/blob/v0.32.0/tracing/api/v1/types.go
 */
import { readFileSync } from 'node:fs';
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { parse } from 'yaml';
import type { PodKey, PodTraceRecorder, TraceStep } from './recorder.js';

/** apiserver.config.k8s.io TracingConfiguration (the fields upstream reads). */
export interface TracingConfiguration {
  /** `host:port` of an OTLP receiver (upstream default `localhost:4317`, OTLP/gRPC); here OTLP/HTTP: `http://<endpoint>/v1/traces`, or a full URL */
  endpoint?: string;
  /** sampled traces per million new traces (0–1,000,000); default 0 */
  samplingRatePerMillion?: number;
}

const API_VERSIONS = ['apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1'];

/**
 * Reads and validates a `--tracing-config-file`.
 * @throws Error with upstream's field error text for a bad kind, apiVersion, endpoint or rate
 */
export function loadTracingConfiguration(path: string): TracingConfiguration {
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown> | null;
  if (!doc || doc.kind !== 'TracingConfiguration' || !API_VERSIONS.includes(String(doc.apiVersion))) {
    throw new Error(`${path}: not a TracingConfiguration of ${API_VERSIONS.join(', ')} (kind ${JSON.stringify(doc?.kind)}, apiVersion ${JSON.stringify(doc?.apiVersion)})`);
  }
  const c: TracingConfiguration = {};
  if (doc.endpoint !== undefined) {
    c.endpoint = String(doc.endpoint);
    try {
      new URL(endpointURL(c.endpoint));
    } catch (e) {
      throw new Error(`tracing.endpoint: Invalid value: "${c.endpoint}": ${(e as Error).message}`);
    }
  }
  if (doc.samplingRatePerMillion !== undefined) {
    const r = Number(doc.samplingRatePerMillion);
    if (!Number.isInteger(r) || r < 0) throw new Error(`tracing.samplingRatePerMillion: Invalid value: ${String(doc.samplingRatePerMillion)}: sampling rate must be positive`);
    if (r > 1_000_000) throw new Error(`tracing.samplingRatePerMillion: Invalid value: ${r}: sampling rate per million must be less than or equal to one million`);
    c.samplingRatePerMillion = r;
  }
  return c;
}

/** The OTLP/HTTP traces URL of an endpoint (`host:port` → `http://host:port/v1/traces`). */
export function endpointURL(endpoint: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `http://${endpoint}`;
  const u = new URL(withScheme);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1/traces';
  return u.toString();
}

/** The service that did a step. */
function serviceOf(component: string): 'kube-apiserver' | 'kube-scheduler' | 'kubelet' {
  if (component === 'scheduler') return 'kube-scheduler';
  if (component === 'kubelet' || component === 'cri' || component === 'cni') return 'kubelet';
  return 'kube-apiserver';
}

/** Exports the recorder's traces; `shutdown()` flushes what is queued. */
export interface PodTraceExporter {
  shutdown(): Promise<void>;
  /** spans exported or queued so far */
  readonly spans: number;
}

/** Starts exporting the traces `recorder` records, as configured. */
export function exportPodTraces(recorder: PodTraceRecorder, cfg: TracingConfiguration): PodTraceExporter {
  const url = endpointURL(cfg.endpoint ?? 'localhost:4318');
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler((cfg.samplingRatePerMillion ?? 0) / 1_000_000) });
  const providers = new Map<string, BasicTracerProvider>();
  const tracers = new Map<string, Tracer>();
  for (const service of ['kube-apiserver', 'kube-scheduler', 'kubelet']) {
    const p = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      sampler,
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 })],
    });
    providers.set(service, p);
    tracers.set(service, p.getTracer('k8ts.io/pod-trace'));
  }
  const propagator = new W3CTraceContextPropagator();
  const roots = new Map<string, Span>();
  let spans = 0;

  const rootOf = (pod: PodKey, first: TraceStep): Span => {
    let root = roots.get(pod.uid);
    if (root) return root;
    const tp = recorder.traceParentOf(pod.uid);
    const parent = tp
      ? propagator.extract(context.active(), { traceparent: tp }, { get: (c, k) => (c as Record<string, string>)[k], keys: (c) => Object.keys(c as object) })
      : context.active();
    root = tracers.get('kube-apiserver')!.startSpan(
      'Pod creation',
      {
        kind: SpanKind.SERVER,
        startTime: first.start,
        attributes: { 'k8s.namespace.name': pod.namespace, 'k8s.pod.name': pod.name, 'k8s.pod.uid': pod.uid },
      },
      parent,
    );
    roots.set(pod.uid, root);
    return root;
  };

  recorder.subscribe((c) => {
    const s = c.step;
    if (!s) {
      // the pod is gone: its root ends if it had not already
      const r = roots.get(c.pod.uid);
      if (r?.isRecording()) r.end();
      roots.delete(c.pod.uid);
      return;
    }
    const root = rootOf(c.pod, s);
    if (!root.spanContext().traceFlags) return; // not sampled
    const ctx = trace.setSpan(context.active(), root);
    const span = tracers.get(serviceOf(s.component))!.startSpan(
      s.detail ? `${s.name} ${s.detail}` : s.name,
      {
        startTime: s.start,
        attributes: {
          'k8ts.step.seed': s.seed,
          'k8ts.step.name': s.name,
          'k8ts.component': s.component,
          'k8ts.step.level': s.level,
          ...(s.detail ? { 'k8ts.step.target': s.detail } : {}),
          'k8s.namespace.name': c.pod.namespace,
          'k8s.pod.name': c.pod.name,
        },
      },
      ctx,
    );
    if (s.failure) span.setStatus({ code: SpanStatusCode.ERROR, message: s.message ?? s.name });
    span.end(s.end);
    spans++;
    // the root ends at Running; later steps (Ready, restarts) stay in the pod's trace
    if (s.name === 'Running' && root.isRecording()) root.end(s.end);
  });

  return {
    get spans() {
      return spans;
    },
    async shutdown() {
      for (const r of roots.values()) if (r.isRecording()) r.end();
      roots.clear();
      await Promise.all([...providers.values()].map((p) => p.shutdown()));
    },
  };
}
