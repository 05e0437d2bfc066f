/**
 * Wiring of the pod creation trace (src/trace) into `k8ts server`: one recorder shared by
 * the API server (request steps, the podtraces resource, storage commits), the scheduler
 * and the in-process kubelets; its Prometheus metrics on the API server's /metrics; with
 * `--tracing-config-file`, OpenTelemetry export over OTLP/HTTP (`--pod-trace=false`: none
 * of it).
 */
import { podTraceDefinition } from '../api/trace/v1alpha1/podtrace/definition.js';
import { podTraceResource } from '../apiserver/podtrace/resource.js';
import type { APIServer, APIServerOptions } from '../apiserver/apiserver.js';
import { PodCreationMetrics } from '../trace/metrics.js';
import { exportPodTraces, loadTracingConfiguration, type PodTraceExporter } from '../trace/otel.js';
import { PodTraceRecorder } from '../trace/recorder.js';
import { podRequestTracer } from '../trace/request-marks.js';

/** The trace parts of the API server's options, and the recorder the other components report to. */
export interface PodTraceWiring {
  recorder: PodTraceRecorder;
  /** merged into APIServerOptions */
  apiServer: Required<Pick<APIServerOptions, 'requestTracer' | 'virtualResources' | 'storeConsumers' | 'definitions'>>;
  /** serves the metrics on the API server's /metrics */
  attach(api: APIServer): void;
  /** flushes the OpenTelemetry export */
  stop(): Promise<void>;
}

/**
 * The wiring when tracing is on; undefined when off.
 * @param tracingConfigFile `--tracing-config-file` (apiserver.config.k8s.io TracingConfiguration)
 * @throws Error for an invalid tracing configuration, or one given with tracing off
 */
export function podTraceWiring(enabled: boolean, tracingConfigFile?: string): PodTraceWiring | undefined {
  if (!enabled) {
    if (tracingConfigFile) throw new Error('--tracing-config-file needs the pod creation trace (--pod-trace=true)');
    return undefined;
  }
  const recorder = new PodTraceRecorder();
  const resource = podTraceResource(recorder);
  const metrics = new PodCreationMetrics(recorder);
  const exporter: PodTraceExporter | undefined = tracingConfigFile ? exportPodTraces(recorder, loadTracingConfiguration(tracingConfigFile)) : undefined;
  return {
    recorder,
    apiServer: { requestTracer: podRequestTracer(recorder), virtualResources: [resource], storeConsumers: [resource], definitions: [podTraceDefinition] },
    attach(api) {
      api.metrics.add(...metrics.all());
    },
    async stop() {
      await exporter?.shutdown();
    },
  };
}
