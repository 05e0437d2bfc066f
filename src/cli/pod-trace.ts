/**
 * Wiring of the pod creation trace (src/trace) into `k8ts server`: one recorder shared by
 * the API server (request steps, the podtraces resource, storage commits), the scheduler
 * and the in-process kubelets (`--pod-trace=false`: none of it).
 */
import { podTraceDefinition } from '../api/trace/v1alpha1/podtrace/definition.js';
import { podTraceResource } from '../apiserver/podtrace/resource.js';
import type { APIServerOptions } from '../apiserver/apiserver.js';
import { PodTraceRecorder } from '../trace/recorder.js';
import { podRequestTracer } from '../trace/request-marks.js';

/** The trace parts of the API server's options, and the recorder the other components report to. */
export interface PodTraceWiring {
  recorder: PodTraceRecorder;
  /** merged into APIServerOptions */
  apiServer: Required<Pick<APIServerOptions, 'requestTracer' | 'virtualResources' | 'storeConsumers' | 'definitions'>>;
}

/** The wiring when tracing is on; undefined when off. */
export function podTraceWiring(enabled: boolean): PodTraceWiring | undefined {
  if (!enabled) return undefined;
  const recorder = new PodTraceRecorder();
  const resource = podTraceResource(recorder);
  return {
    recorder,
    apiServer: { requestTracer: podRequestTracer(recorder), virtualResources: [resource], storeConsumers: [resource], definitions: [podTraceDefinition] },
  };
}
